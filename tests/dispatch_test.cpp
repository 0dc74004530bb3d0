// vkdml-dispatch: DxDispatch's models run through the tool's code on the
// test device (validation on): the repository's models, DirectML's example
// models where they are present, every ONNX conformance case as a model
// generated here, and malformed models.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "data_types.hpp"
#include "descriptors.hpp"
#include "dispatch_helpers.hpp"
#include "json.hpp"
#include "model_parser.hpp"
#include "printer.hpp"
#include "support.hpp"
#include "tool.hpp"

namespace fs = std::filesystem;
using namespace test::models;

TEST_CASE("dispatch: the repository's models print their results") {
  struct Case {
    const char* file;
    const char* output;
  };
  const Case cases[] = {
      {"join_parts.json",
       "Compile Op\nDispatch 'join': 1 iterations, T ms median (CPU), T ms median (GPU)\n"
       "Resource 'joined': 50, 60, -1, -2, -3, 90, 100, 110, 120\n"},
      {"slice_strides.json",
       "Compile Op\nDispatch 'slice': 1 iterations, T ms median (CPU), T ms median (GPU)\n"
       "Resource 'sliced': 6, 8, 10, 18, 20, 22\n"},
      {"diagonal_matrix.json",
       "Compile Op\nDispatch 'diagonal': 1 iterations, T ms median (CPU), T ms median (GPU)\n"
       "Resource 'eye': 0, 2.5, 0, 0, 0, 0, 2.5, 0, 0, 0, 0, 2.5\n"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    Run r = runModelFile(modelsDir() + "/" + c.file);
    CHECK(r.err == "");
    CHECK(r.code == 0);
    CHECK(withoutTimings(r.out) == runningOn() + c.output);
  }
}

TEST_CASE("dispatch: DirectML's dml_join.json and dml_slice.json print what DxDispatch prints") {
  std::string dir = dxdispatchModelsDir();
  if (dir.empty()) {
    MESSAGE(
        "skipped: DirectML's DxDispatch/models is absent (../shared/dxdispatch/models or "
        "$VKDML_DXDISPATCH_MODELS)");
    return;
  }
  Run join = runModelFile(dir + "/dml_join.json");
  CHECK(join.err == "");
  CHECK(join.code == 0);
  CHECK(withoutTimings(join.out) == runningOn() +
                                        "Compile Op\n"
                                        "Dispatch 'join': 1 iterations, T ms median (CPU), T ms median (GPU)\n"
                                        "Resource 'Out': 1, 2, 3, 100, 115, 5, 6, 7, 8, 9\n");
  Run slice = runModelFile(dir + "/dml_slice.json");
  CHECK(slice.err == "");
  CHECK(slice.code == 0);
  CHECK(withoutTimings(slice.out) == runningOn() +
                                         "Compile Op\n"
                                         "Dispatch 'slice': 1 iterations, T ms median (CPU), T ms median (GPU)\n"
                                         "Resource 'output': 7, 9, 12, 14, 17, 19\n");
}

namespace {

// A conformance case as a DxDispatch model: each input an explicit list,
// the output zeros, one dispatch, and the output written as raw bytes.
nlohmann::ordered_json conformanceModel(const test::Json& c) {
  using J = nlohmann::ordered_json;
  J model;
  model["resources"] = J::object();
  const std::string op = c["op"].asString();
  // SCATTER_ND's ONNX shapes are padded with leading 1s to one rank.
  size_t rank = 0;
  if (op == "SCATTER_ND")
    for (const auto& [name, t] : c["inputs"].members) rank = std::max(rank, t["sizes"].items.size());
  auto tensorDesc = [&](const test::Json& t) {
    J sizes = J::array();
    for (size_t i = t["sizes"].items.size(); i < rank; ++i) sizes.push_back(1);
    for (const auto& s : t["sizes"].items) sizes.push_back(s.asUint());
    if (sizes.empty()) sizes.push_back(1);
    return J{{"DataType", t["dtype"].asString()}, {"Sizes", sizes}};
  };
  auto values = [](const test::Json& t) {
    J list = J::array();
    for (const auto& v : t["data"].items) {
      if (v.kind == test::Json::Kind::String)  // NaN, Infinity -> DxDispatch's names
        list.push_back(v.asString() == "NaN" ? "nan" : v.asString() == "Infinity" ? "inf" : "-inf");
      else if (v.text.find_first_of(".eE") != std::string::npos)
        list.push_back(v.asDouble());
      else if (v.text[0] == '-')
        list.push_back(v.asInt());
      else
        list.push_back(v.asUint());
    }
    return list;
  };
  J desc = J::object();
  J bindings = J::object();
  for (const auto& [name, t] : c["inputs"].members) {
    if (t.kind == test::Json::Kind::Array) {  // Join's InputTensors
      J descs = J::array(), names = J::array();
      for (size_t i = 0; i < t.items.size(); ++i) {
        std::string resource = name + std::to_string(i);
        model["resources"][resource] = {{"initialValuesDataType", t.items[i]["dtype"].asString()},
                                        {"initialValues", values(t.items[i])}};
        descs.push_back(tensorDesc(t.items[i]));
        names.push_back(resource);
      }
      desc[name] = descs;
      bindings[name] = names;
    } else {
      model["resources"][name] = {{"initialValuesDataType", t["dtype"].asString()}, {"initialValues", values(t)}};
      desc[name] = tensorDesc(t);
      bindings[name] = name;
    }
  }
  const test::Json& output = c["output"];
  model["resources"]["Output"] = {{"initialValuesDataType", output["dtype"].asString()},
                                  {"initialValues", {{"valueCount", output["data"].items.size()}, {"value", 0}}}};
  desc["OutputTensor"] = tensorDesc(output);
  bindings["OutputTensor"] = "Output";
  for (const auto& [name, v] : c["params"].members) {
    if (v.kind == test::Json::Kind::Array) {
      J list = J::array();
      for (const auto& x : v.items) list.push_back(x.text[0] == '-' ? J(x.asInt()) : J(x.asUint()));
      desc[name] = list;
    } else if (v.kind == test::Json::Kind::String) {
      desc[name] = v.asString();
    } else if (v.text.find_first_of(".eE") != std::string::npos) {
      desc[name] = v.asDouble();
    } else {
      desc[name] = v.text[0] == '-' ? J(v.asInt()) : J(v.asUint());
    }
  }
  model["dispatchables"]["op"] = {{"type", "DML_OPERATOR_" + op}, {"desc", desc}};
  model["commands"] = J::array({J{{"type", "dispatch"}, {"dispatchable", "op"}, {"bindings", bindings}},
                                J{{"type", "writeFile"}, {"resource", "Output"}, {"targetPath", "output.bin"}}});
  return model;
}

}  // namespace

TEST_CASE("dispatch: every ONNX conformance case as a model gives the expected output, bit for bit") {
  if (test::conformanceDir().empty()) {
    MESSAGE("skipped: ../shared/conformance/onnx is absent (set VKDML_CONFORMANCE_DIR)");
    return;
  }
  size_t count = 0;
  // Every operator of the table, by its name without "DML_" (the conformance directory's name).
  for (const char* op : {
#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create, dataTypes) &name[sizeof "DML_" - 1],
#include "operators.inc"
#undef VKDML_OPERATOR
       }) {
    for (const auto& path : test::conformanceCases(op)) {
      CAPTURE(path);
      test::Json c = test::Json::parseFile(path);
      TempDir dir;
      fs::path model = dir.write("model.json", conformanceModel(c).dump(2));
      Run r = runModelFile(model, {"--output_path", dir.path.string()});
      CHECK(r.err == "");
      REQUIRE(r.code == 0);
      const fs::path written = fs::absolute(dir.path / "output.bin").lexically_normal();
      CHECK(r.out.find("Resource 'Output' written to '" + written.string() + "'\n") != std::string::npos);
      std::ifstream in(written, std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      test::Tensor expected = test::tensorFromJson(c["output"]);
      const size_t valueBytes = expected.elementCount() * expected.elementSize();
      REQUIRE(bytes.size() == ((valueBytes + 3) & ~size_t(3)));  // the buffer, padded to 4 bytes
      bytes.resize(valueBytes);
      CHECK(bytes == std::vector<uint8_t>(expected.bytes.begin(), expected.bytes.begin() + valueBytes));
      ++count;
    }
  }
  CHECK(count >= 42);
}

TEST_CASE("dispatch: data type names are vkdml::toString's, with or without DirectML's prefix") {
  const std::pair<DML_TENSOR_DATA_TYPE, const char*> names[] = {
      {DML_TENSOR_DATA_TYPE_UNKNOWN, "UNKNOWN"}, {DML_TENSOR_DATA_TYPE_FLOAT32, "FLOAT32"},
      {DML_TENSOR_DATA_TYPE_FLOAT16, "FLOAT16"}, {DML_TENSOR_DATA_TYPE_UINT32, "UINT32"},
      {DML_TENSOR_DATA_TYPE_UINT16, "UINT16"},   {DML_TENSOR_DATA_TYPE_UINT8, "UINT8"},
      {DML_TENSOR_DATA_TYPE_INT32, "INT32"},     {DML_TENSOR_DATA_TYPE_INT16, "INT16"},
      {DML_TENSOR_DATA_TYPE_INT8, "INT8"},       {DML_TENSOR_DATA_TYPE_FLOAT64, "FLOAT64"},
      {DML_TENSOR_DATA_TYPE_UINT64, "UINT64"},   {DML_TENSOR_DATA_TYPE_INT64, "INT64"}};
  for (const auto& [type, name] : names) {
    CAPTURE(name);
    CHECK(std::string(vkdml::toString(type)) == name);
    CHECK(dispatch::dataTypeFromName(name) == type);
    CHECK(dispatch::dataTypeFromName(std::string("DML_TENSOR_DATA_TYPE_") + name) == type);
  }
  CHECK_FALSE(dispatch::dataTypeFromName("UINT4").has_value());
  CHECK_FALSE(dispatch::dataTypeFromName("float32").has_value());  // case-sensitive, as DxDispatch's strcmp
}

TEST_CASE("dispatch: FLOAT16 values convert as DxDispatch's half.hpp does (truncation)") {
  // Measured with DxDispatch's vendored half.hpp (HALF_ROUND_STYLE -1).
  const std::pair<double, uint16_t> cases[] = {{0.1, 0x2E66},     {1.0 / 3, 0x3555}, {2051, 0x6801},   {65519, 0x7BFF},
                                               {65520, 0x7BFF},   {70000, 0x7C00},   {3e-8, 0x0000},   {-0.1, 0xAE66},
                                               {3.14159, 0x4248}, {1, 0x3C00},       {6.0e-8, 0x0001}, {-65536, 0xFC00},
                                               {0.00006, 0x03EE}};
  for (const auto& [value, bits] : cases) {
    CAPTURE(value);
    CHECK(dispatch::halfTruncated(static_cast<float>(value)) == bits);
  }
  CHECK(dispatch::halfTruncated(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK((dispatch::halfTruncated(std::numeric_limits<float>::quiet_NaN()) & 0x7FFF) == 0x7E00);
  // Round to nearest even for DIAGONAL_MATRIX's FLOAT Value lowered to FLOAT16.
  CHECK(dispatch::halfNearestEven(2051) == 0x6802);
  CHECK(dispatch::halfNearestEven(65520) == 0x7C00);
  CHECK(dispatch::halfNearestEven(0.1f) == 0x2E66);
  CHECK(dispatch::halfNearestEven(3e-8f) == 0x0001);
  CHECK(dispatch::halfNearestEven(2049) == 0x6800);  // a tie, to even
  for (uint32_t h = 0; h < 0x7C00; ++h) {            // every finite half comes back unchanged both ways
    float f = dispatch::halfToFloat(static_cast<uint16_t>(h));
    REQUIRE(dispatch::halfTruncated(f) == h);
    REQUIRE(dispatch::halfNearestEven(f) == h);
  }

  auto model = joinModel();
  model["resources"]["A"] = {{"initialValuesDataType", "FLOAT16"},
                             {"initialValues", {{"valueCount", 5}, {"valueStart", 1}, {"valueDelta", 0.1}}}};
  model["commands"] = {{{"type", "print"}, {"resource", "A"}}};
  model["dispatchables"]["join"]["desc"]["InputTensors"][0]["DataType"] = "FLOAT16";
  model["dispatchables"]["join"]["desc"]["OutputTensor"]["DataType"] = "FLOAT16";
  Run r = runModel(model.dump());
  CHECK(r.err == "");
  // Each step adds in float and truncates to half, as DxDispatch's sequence.
  CHECK(r.out == runningOn() + "Compile Op\nResource 'A': 1, 1.09961, 1.19922, 1.29883, 1.39844\n");
}

TEST_CASE("dispatch: print writes values as DxDispatch does") {
  using dispatch::formatResource;
  auto bytesOf = [](const auto& values) {
    std::vector<uint8_t> b(sizeof values);
    std::memcpy(b.data(), &values, sizeof values);
    return b;
  };
  const float floats[] = {1, 0.1f, 3.2f, 1234567, 1e-5f, -0.0f, std::numeric_limits<float>::infinity()};
  CHECK(formatResource("F", DML_TENSOR_DATA_TYPE_FLOAT32, bytesOf(floats), 7, false) ==
        "Resource 'F': 1, 0.1, 3.2, 1.23457e+06, 1e-05, -0, inf");
  const int8_t chars[] = {65, 66, 67, 0};  // INT8/UINT8 as characters, as DxDispatch streams them
  CHECK(formatResource("C", DML_TENSOR_DATA_TYPE_INT8, bytesOf(chars), 3, false) == "Resource 'C': A, B, C");
  const int64_t wide[] = {-9223372036854775807 - 1, 42};
  CHECK(formatResource("W", DML_TENSOR_DATA_TYPE_INT64, bytesOf(wide), 2, false) ==
        "Resource 'W': -9223372036854775808, 42");
  const uint32_t numbers[] = {5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  CHECK(formatResource("U", DML_TENSOR_DATA_TYPE_UINT32, bytesOf(numbers), 11, true)
            .rfind("Resource 'U':\n[ 0] 5 (0x       5)\n[ 1] 0 (0x       0)\n[ 2] 1 (0x       1)\n", 0) == 0);
  const int8_t minusOne[] = {-1, 0, 0, 0};
  CHECK(formatResource("I", DML_TENSOR_DATA_TYPE_INT8, bytesOf(minusOne), 1, true) ==
        std::string("Resource 'I':\n[0] \xFF (0xFF)\n"));
  CHECK(formatResource("F", DML_TENSOR_DATA_TYPE_FLOAT32, bytesOf(floats), 1, true) ==
        "Resource 'F':\n[0] 1 (0x3F800000)\n");
  CHECK_THROWS_WITH(formatResource("X", DML_TENSOR_DATA_TYPE_UNKNOWN, {}, 0, false), "Unexpected DML_TENSOR_DATA_TYPE");

  // Through the tool: verbose ends with a blank line (DxDispatch's endl after the last "\n").
  auto model = joinModel();
  model["commands"][1]["verbose"] = true;
  Run r = runModel(model.dump());
  CHECK(withoutTimings(r.out) == runningOn() +
                                     "Compile Op\nDispatch 'join': 1 iterations, T ms median (CPU), T ms median (GPU)\n"
                                     "Resource 'Out':\n[0] 1 (0x3F800000)\n[1] 2 (0x40000000)\n"
                                     "[2] 3 (0x40400000)\n[3] 4 (0x40800000)\n\n");
}
