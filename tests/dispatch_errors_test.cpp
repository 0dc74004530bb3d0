// vkdml-dispatch: what the tool's reader accepts and refuses (leniencies,
// malformed files, unknown names, wrong types, sizes, initializers), the
// lowerings of older operators, its options and --list.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
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
#include "resource_init.hpp"
#include "support.hpp"
#include "tool.hpp"

namespace fs = std::filesystem;
using namespace test::models;

TEST_CASE("dispatch: comments and trailing commas are accepted, other leniencies are not") {
  std::string text = joinModel().dump(2);
  // A comment before each line, and a comma before each closing bracket after a value.
  std::string lenient =
      "/* lenient */\n" + std::regex_replace(text, std::regex(R"(\n(\s*)([\]\}]))"), ",\n$1// x\n$1$2");
  lenient = std::regex_replace(lenient, std::regex(R"(\[,)"), "[");  // no comma right after '['
  Run r = runModel(lenient);
  CHECK(r.err == "");
  CHECK(r.code == 0);
  std::string blanked = "[1, /* , ] */ 2, // ,]\n 3,]";
  dispatch::blankTrailingCommas(blanked);
  CHECK(blanked == "[1, /* , ] */ 2, // ,]\n 3 ]");
  std::string inString = R"({"a,]": "b\",}",})";
  dispatch::blankTrailingCommas(inString);
  CHECK(inString == R"({"a,]": "b\",}" })");
  // A comma with no value before it stays an error, as in RapidJSON.
  CHECK(parseError("[,]").find("model.json:1:2: JSON parse error:") != std::string::npos);
  CHECK(parseError("{\"resources\": [1,,]}").find("model.json:1:18: JSON parse error:") != std::string::npos);
  CHECK(parseError("{'resources': {}}").find("model.json:1:2: JSON parse error:") != std::string::npos);
  CHECK(parseError("[NaN]").find("model.json:1:2: JSON parse error:") != std::string::npos);
  // What follows the root value is ignored (RapidJSON's kParseStopWhenDoneFlag).
  Run trailing = runModel(joinModel().dump() + " trailing text");
  CHECK(trailing.code == 0);
}

TEST_CASE("dispatch: a malformed file names file:line:column and what was expected") {
  TempDir dir;
  fs::path path = dir.write("bad.json", "{\n  \"resources\": {\n    \"A\": { \"initialValues\": [1 2] }\n");
  Run r = runModelFile(path);
  CHECK(r.code == 1);
  CHECK(r.err == "Failed to parse the model: " + path.string() +
                     ":3:32: JSON parse error: syntax error while parsing array - unexpected number literal; "
                     "expected ']'\n");
  fs::path truncated = dir.write("truncated.json", "{\n  \"resources\": {\n");
  CHECK(runModelFile(truncated).err ==
        "Failed to parse the model: " + truncated.string() +
            ":3:1: JSON parse error: syntax error while parsing object key - unexpected end of input; expected string "
            "literal\n");
  fs::path empty = dir.write("empty.json", "");
  CHECK(runModelFile(empty).err.find(empty.string() + ":1:1: JSON parse error: ") != std::string::npos);
  fs::path large = dir.write("large.json", "[" + std::string(16 << 20, ' ') + "]");
  CHECK(runModelFile(large).err ==
        "Failed to parse the model: " + large.string() + ": the file is larger than 16 MiB\n");
  fs::path missing = dir.path / "missing.json";
  CHECK(runModelFile(missing).err == "Failed to parse the model: " + missing.string() + ": not a file\n");
  fs::path other = dir.write("model.txt", "{}");
  CHECK(runModelFile(other).err == "Failed to parse the model: " + other.string() + ": expected a .json file\n");
}

TEST_CASE("dispatch: unknown operators, resources, dispatchables and commands are named, with where they are") {
  auto model = joinModel();
  model["dispatchables"]["join"]["type"] = "DML_OPERATOR_ELEMENT_WISE_ADD";
  std::string text = model.dump(2);
  CHECK(parseError(text).find(where(text, "\"DML_OPERATOR_ELEMENT_WISE_ADD\"") +
                              ": dispatchables.join.type: unknown operator 'DML_OPERATOR_ELEMENT_WISE_ADD' "
                              "(vkdml-dispatch runs DML_OPERATOR_SLICE, ") != std::string::npos);
  model = joinModel();
  model["commands"][0]["bindings"]["InputTensors"] = "B";
  text = model.dump(2);
  CHECK(parseError(text).find(where(text, "\"B\"") +
                              ": commands[0].bindings.InputTensors: unknown resource 'B' (the model's resources: A, "
                              "Out)") != std::string::npos);
  model = joinModel();
  model["commands"][1]["resource"] = "Nope";
  CHECK(parseError(model.dump()).find("commands[1].resource: unknown resource 'Nope'") != std::string::npos);
  model = joinModel();
  model["commands"][0]["dispatchable"] = "joins";
  CHECK(parseError(model.dump())
            .find("commands[0].dispatchable: unknown dispatchable 'joins' (the model's "
                  "dispatchables: join)") != std::string::npos);
  model = joinModel();
  model["commands"][1]["type"] = "draw";
  CHECK(parseError(model.dump()).find("commands[1].type: unrecognized command 'draw' (dispatch, print, writeFile)") !=
        std::string::npos);
  model = joinModel();
  model["dispatchables"]["join"]["type"] = "hlsl";
  CHECK(parseError(model.dump()).find("'hlsl' dispatchables are not supported") != std::string::npos);
  // Names of enums: with or without the prefix; case-sensitive as DxDispatch's strcmp.
  model = joinModel();
  model["dispatchables"]["join"]["type"] = "JOIN";
  model["resources"]["A"]["initialValuesDataType"] = "DML_TENSOR_DATA_TYPE_FLOAT32";
  CHECK(runModel(model.dump()).code == 0);
  model["resources"]["A"]["initialValuesDataType"] = "float32";
  CHECK(parseError(model.dump())
            .find("resources.A.initialValuesDataType: 'float32' is not a recognized value for "
                  "DML_TENSOR_DATA_TYPE") != std::string::npos);
}

TEST_CASE("dispatch: unknown fields are ignored as DxDispatch ignores them, and named with -v 1") {
  auto model = joinModel();
  model["dispatchables"]["join"]["desc"]["OutputTensor"]["Stride"] = {1, 1};
  model["commands"][0]["bindings"]["OutputTensr"] = "Out";
  model["resources"]["A"]["comment"] = "a note";
  std::string text = model.dump(2);
  Run quiet = runModel(text);
  CHECK(quiet.code == 0);
  CHECK(quiet.err == "");
  Run verbose = runModel(text, {"-v", "1"});
  CHECK(verbose.code == 0);
  CHECK(verbose.err.find(where(text, "\"comment\"") +
                         ": resources.A.comment: unknown field, ignored (as DxDispatch does)") != std::string::npos);
  CHECK(verbose.err.find(": dispatchables.join.desc.OutputTensor.Stride: unknown field, ignored") != std::string::npos);
  CHECK(verbose.err.find(": commands[0].bindings.OutputTensr: DML_OPERATOR_JOIN has no bind point 'OutputTensr' "
                         "(it has InputTensors, OutputTensor); ignored (as DxDispatch does)") != std::string::npos);
  CHECK(verbose.out.find("Initialize 'join': ") != std::string::npos);
  CHECK(verbose.out.find("CPU Timings (Hot)  : 1 samples, ") != std::string::npos);
  // A key holding "\u0000" is a name of its own, not the name it starts
  // with (the model fuzzer's finding: a lookup by C string found nothing).
  model = joinModel();
  const std::string key = std::string("OutputTensor") + '\0' + "x";
  model["commands"][0]["bindings"][key] = "A";
  text = model.dump(2);
  Run nul = runModel(text, {"-v", "1"});
  CHECK(nul.code == 0);
  CHECK(nul.err.find("commands[0].bindings." + key + ": DML_OPERATOR_JOIN has no bind point '" + key + "'") !=
        std::string::npos);
}

TEST_CASE("dispatch: a descriptor vkdml rejects prints vkdml's error at the field") {
  auto model = joinModel();
  model["dispatchables"]["join"]["desc"]["Axis"] = 2;
  std::string text = model.dump(2);
  Run r = runModel(text);
  CHECK(r.code == 1);
  CHECK(r.out == runningOn());
  CHECK(r.err.rfind("Failed to execute the model: ", 0) == 0);
  CHECK(r.err.find(where(text, "\"Axis\": 2", 8) + ": ERROR creating dispatchable 'join': DML_JOIN: Axis: must be < "
                                                   "OutputTensor.DimensionCount 2, not 2\n") != std::string::npos);
  model = joinModel();
  model["dispatchables"]["join"]["desc"]["OutputTensor"]["Sizes"] = {2, 3};
  r = runModel(model.dump(2));
  CHECK(r.err.find(": ERROR creating dispatchable 'join': DML_JOIN: ") != std::string::npos);
  // A binding too short for its tensor: vkdml's binding rule, after DxDispatch's message.
  model = joinModel();
  model["commands"][0]["bindings"]["InputTensors"] = {{{"name", "A"}, {"elementOffset", 1}}};
  r = runModel(model.dump());
  CHECK(r.code == 1);
  CHECK(r.err.find("ERROR while binding resources: DML_JOIN: ") != std::string::npos);
  CHECK(r.err.find("Failed to execute the model: ") != std::string::npos);
  // Counts that disagree with their arrays never reach vkdml.
  model = joinModel();
  model["dispatchables"]["join"]["desc"]["InputCount"] = 2;
  model["commands"][0]["bindings"]["InputTensors"] = {"A", "A"};
  r = runModel(model.dump());
  CHECK(r.err.find("dispatchables.join: DML_OPERATOR_JOIN: InputTensors: has 1 values but InputCount is 2") !=
        std::string::npos);
  model = joinModel();
  model["dispatchables"]["join"]["desc"]["OutputTensor"]["DimensionCount"] = 3;
  CHECK(parseError(model.dump())
            .find("dispatchables.join.desc.OutputTensor.DimensionCount: is 3 but Sizes has 2 "
                  "values") != std::string::npos);
}

TEST_CASE("dispatch: SLICE and DIAGONAL_MATRIX lower to SLICE1 and DIAGONAL_MATRIX1, or say why they cannot") {
  const char* slice = R"({"resources": {"in": {"initialValuesDataType": "INT8", "initialValues": {"valueCount": 10,
      "valueStart": -5, "valueDelta": 1}}, "out": {"initialValuesDataType": "INT8", "initialValues": [0, 0, 0, 0]}},
    "dispatchables": {"s": {"type": "DML_OPERATOR_SLICE", "desc": {"InputTensor": {"DataType": "INT8", "Sizes": [10]},
      "OutputTensor": {"DataType": "INT8", "Sizes": [%OUT%]}, "DimensionCount": 1, "Offsets": [%OFFSET%],
      "Sizes": [%SIZE%], "Strides": [%STRIDE%]}}},
    "commands": [{"type": "dispatch", "dispatchable": "s", "bindings": {"InputTensor": "in", "OutputTensor": "out"}},
      {"type": "print", "resource": "out", "verbose": true}]})";
  auto make = [&](int out, int offset, int size, int stride) {
    std::string s = slice;
    for (auto [key, value] :
         {std::pair<std::string, int>{"%OUT%", out}, {"%OFFSET%", offset}, {"%SIZE%", size}, {"%STRIDE%", stride}})
      s = std::regex_replace(s, std::regex(key), std::to_string(value));
    return s;
  };
  // The last read is the input's last element: legal for SLICE (Sizes * Strides would pass the end).
  Run r = runModel(make(4, 0, 4, 3));
  CHECK(r.code == 0);
  CHECK(r.out.find("[0] \xFB (0xFB)\n[1] \xFE (0xFE)\n[2] \x01 (0x 1)\n[3] \x04 (0x 4)\n") != std::string::npos);
  Run past = runModel(make(4, 1, 4, 3));
  CHECK(past.err.find("dispatchables.s: DML_OPERATOR_SLICE: Offsets[0]: Offsets[0] + (Sizes[0] - 1) * Strides[0] "
                      "must be < InputTensor.Sizes[0] (1 + 3 * 3 = 10 >= 10)") != std::string::npos);
  CHECK(runModel(make(4, 0, 4, 0)).err.find("DML_OPERATOR_SLICE: Strides[0]: must be >= 1, not 0") !=
        std::string::npos);
  CHECK(
      runModel(make(3, 0, 4, 1)).err.find("DML_OPERATOR_SLICE: Sizes[0]: must equal OutputTensor.Sizes[0] (4 != 3)") !=
      std::string::npos);

  const char* diagonal = R"({"resources": {"m": {"initialValuesDataType": "%TYPE%", "initialValues":
      {"valueCount": 6, "value": 9}}}, "dispatchables": {"d": {"type": "DIAGONAL_MATRIX", "desc": {"OutputTensor":
      {"DataType": "%TYPE%", "Sizes": [2, 3]}, "Offset": %OFFSET%, "Value": %VALUE%}}},
    "commands": [{"type": "dispatch", "dispatchable": "d", "bindings": {"OutputTensor": "m"}},
      {"type": "print", "resource": "m"}]})";
  auto diag = [&](const char* type, const char* offset, const char* value) {
    std::string s = std::regex_replace(diagonal, std::regex("%TYPE%"), type);
    s = std::regex_replace(s, std::regex("%OFFSET%"), offset);
    return runModel(std::regex_replace(s, std::regex("%VALUE%"), value));
  };
  CHECK(diag("INT32", "-1", "-10.6").out.find("Resource 'm': 0, 0, 0, -10, 0, 0\n") != std::string::npos);
  CHECK(diag("FLOAT16", "0", "2051").out.find("Resource 'm': 2052, 0, 0, 0, 2052, 0\n") != std::string::npos);
  CHECK(diag("UINT64", "2147483647", "1").out.find("Resource 'm': 0, 0, 0, 0, 0, 0\n") != std::string::npos);
  CHECK(diag("UINT8", "0", "-1")
            .err.find("DML_OPERATOR_DIAGONAL_MATRIX: Value: the output type UINT8 cannot hold "
                      "-1") != std::string::npos);
  CHECK(diag("INT16", "0", "\"nan\"").err.find("the output type INT16 cannot hold nan") != std::string::npos);
}

TEST_CASE("dispatch: wrong types and missing fields are named") {
  struct Case {
    std::function<void(nlohmann::ordered_json&)> edit;
    const char* message;
  };
  const Case cases[] = {
      {[](auto& m) { m["resources"]["A"]["initialValues"] = {"x"}; },
       "resources.A.initialValues[0]: expected a number (or \"nan\", \"inf\", \"-inf\"), got \"x\""},
      {[](auto& m) { m["resources"]["A"]["initialValues"] = {18446744073709551615u}; },  // no double holds it
       "resources.A.initialValues[0]: expected a number (or \"nan\", \"inf\", \"-inf\"), got 18446744073709551615"},
      {[](auto& m) { m["resources"]["Out"]["initialValues"]["valueCount"] = -1; },
       "resources.Out.initialValues.valueCount: expected an unsigned integer <= 4294967295, got -1"},
      {[](auto& m) { m["resources"]["Out"]["initialValues"]["valueCount"] = 2.0; },
       "valueCount: expected an unsigned integer <= 4294967295, got 2"},
      {[](auto& m) { m["resources"]["A"].erase("initialValues"); }, "resources.A: field 'initialValues' is required"},
      {[](auto& m) { m["resources"]["A"]["initialValues"] = nlohmann::ordered_json::array(); },
       "resources.A.initialValues: 'initialValues' must be non-empty"},
      {[](auto& m) { m["resources"]["A"]["initialValues"] = "deferred"; }, "\"deferred\" resources are ONNX"},
      {[](auto& m) {
         m["resources"]["A"]["initialValues"] = {{"valueCount", 2}};
       },
       "unknown generator type"},
      {[](auto& m) {
         m["resources"]["A"]["initialValues"] = {{"valueCount", 2}, {"value", 1}, {"valueStart", 1}};
       },
       "'value', 'valueStart' and 'sourcePath' are mutually exclusive"},
      {[](auto& m) {
         m["resources"]["A"]["initialValues"] = {{"valueCount", 2}, {"valueStart", 1}};
       },
       "resources.A.initialValues: field 'valueDelta' is required"},
      {[](auto& m) {
         m["resources"]["A"]["initialValuesDataType"] = "UINT8";
         m["resources"]["A"]["initialValues"] = {1, 256};
       },
       "resources.A.initialValues[1]: expected an unsigned integer <= 255, got 256"},
      {[](auto& m) { m["resources"]["A"]["sizeInBytes"] = 8; },
       "the buffer size (8 bytes) is too small for the initialValues (16 bytes) at offset 0 bytes"},
      {[](auto& m) { m["dispatchables"]["join"]["desc"].erase("Axis"); },
       "dispatchables.join.desc: field 'Axis' is required"},
      {[](auto& m) { m["dispatchables"]["join"]["desc"]["InputTensors"] = "A"; },
       "dispatchables.join.desc.InputTensors: expected an array, got \"A\""},
      {[](auto& m) { m["dispatchables"]["join"]["desc"]["OutputTensor"] = nullptr; },
       "dispatchables.join.desc.OutputTensor: expected a non-null JSON object, got null"},
      {[](auto& m) { m["dispatchables"]["join"]["desc"]["OutputTensor"]["Flags"] = "OWNED"; },
       "'OWNED' is not a recognized value of DML_TENSOR_FLAG_* (NONE, OWNED_BY_DML)"},
      {[](auto& m) { m["dispatchables"]["join"].erase("type"); }, "dispatchables.join: field 'type' is required"},
      {[](auto& m) { m["commands"][0].erase("bindings"); }, "commands[0]: field 'bindings' is required"},
      {[](auto& m) { m["commands"][0]["bindings"] = {1}; }, "expected an object field named 'bindings', got an array"},
      {[](auto& m) { m["commands"][0]["bindings"]["InputTensors"] = 3; },
       "commands[0].bindings.InputTensors: expected a resource name or an object with 'name', got 3"},
      {[](auto& m) {
         m["commands"][0]["bindings"]["OutputTensor"] = {"Out", "A"};
       },
       "commands[0].bindings.OutputTensor: bind point 'OutputTensor' requires 1 resources, but 2 were bound"},
      {[](auto& m) { m["commands"][1]["verbose"] = 1; }, "commands[1].verbose: expected true or false, got 1"},
      // A "\u0000" would end the name the system sees: another file than the one named.
      {[](auto& m) {
         m["resources"]["A"]["initialValues"] = {{"sourcePath", std::string("a.bin\0.x", 8)}};
       },
       "resources.A.initialValues.sourcePath: a file name cannot hold \\u0000"},
      {[](auto& m) {
         m["commands"].push_back(
             {{"type", "writeFile"}, {"resource", "A"}, {"targetPath", std::string("a.bin\0.x", 8)}});
       },
       "commands[2].targetPath: a file name cannot hold \\u0000"},
      {[](auto& m) { m.erase("commands"); }, "expected an array field named 'commands'"},
      {[](auto& m) { m["resources"] = nlohmann::ordered_json::array(); }, "expected an object named 'resources'"},
  };
  for (const auto& c : cases) {
    auto model = joinModel();
    c.edit(model);
    CAPTURE(model.dump());
    std::string error = parseError(model.dump());
    CAPTURE(error);
    CHECK(error.find(c.message) != std::string::npos);
    CHECK(error.find("/model.json:1:") != std::string::npos);  // with the line and column
  }
}

TEST_CASE("dispatch: resource sizes are checked against the device before anything is allocated") {
  // The tool's 4 GiB, or less where the device's maxBufferSize says so.
  const dispatch::ParseOptions limits = dispatch::parseOptions(test::device(), {});
  const uint64_t maxBuffer = test::device().info().maxBufferSize;
  CHECK(limits.maxResourceBytes == std::min<uint64_t>(uint64_t(4) << 30, maxBuffer ? maxBuffer : UINT64_MAX));
  auto model = joinModel();
  model["resources"]["Out"] = {{"initialValuesDataType", "FLOAT64"},
                               {"initialValues", {{"valueCount", 4294967295u}, {"value", 1}}}};
  CHECK(parseError(model.dump())
            .find("resources.Out.initialValues.valueCount: the resource would hold 34359738360 bytes, more than the " +
                  std::to_string(limits.maxResourceBytes) + " a resource may hold") != std::string::npos);
  // 2^32 - 1 bytes of values make a buffer of 4 GiB (rounded up to 4 bytes):
  // refused at once where the device holds less, not built first.
  if (limits.maxResourceBytes < uint64_t(4) << 30 || limits.maxModelBytes < uint64_t(4) << 30) {
    model["resources"]["Out"] = {{"initialValuesDataType", "UINT8"},
                                 {"initialValues", {{"valueCount", 4294967295u}, {"value", 1}}}};
    auto start = std::chrono::steady_clock::now();
    const std::string error = parseError(model.dump());
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
    CHECK(
        std::regex_search(error, std::regex(R"(/model\.json:1:\d+: resources\.Out(\.initialValues\.valueCount)?: the )"
                                            R"((model's resources|resource) would hold \d+ bytes, more than)")));
  }
  // The rounding counts: 15 bytes of values make a buffer of 16.
  const std::string text = R"({"resources": {"u": {"initialValuesDataType": "UINT8",
    "initialValues": {"valueCount": 15, "value": 7}}}, "dispatchables": {}, "commands": []})";
  auto counted = dispatch::JsonDocument::parse(text, "model.json");
  dispatch::ParseOptions fifteen;
  fifteen.maxResourceBytes = 15;
  CHECK_THROWS_WITH_AS(dispatch::parseModel(counted, fifteen),
                       (where(text, "{\"initialValuesDataType\"") +
                        ": resources.u: the resource would hold 16 bytes, more than the 15 a "
                        "resource may hold")
                           .c_str(),
                       dispatch::ModelError);
  // Each resource is built in one allocation of its size: no values grown into padding.
  const std::vector<uint8_t> contents = dispatch::initialContents(dispatch::parseModel(counted).resources[0]);
  CHECK(contents == std::vector<uint8_t>{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 0});
  CHECK(contents.capacity() == 16);
  // Written a piece at a time (the executor's are 64 MiB), the same bytes.
  const std::string kinds = R"({"resources": {
    "s": {"initialValuesDataType": "FLOAT16", "initialValues": {"valueCount": 7, "valueStart": 0.5, "valueDelta": 0.25}},
    "c": {"initialValuesDataType": "INT64", "initialValues": {"valueCount": 3, "value": -2}, "sizeInBytes": 29},
    "l": {"initialValuesDataType": "INT32", "initialValues": [1, -1, 7]}}, "dispatchables": {}, "commands": []})";
  for (const auto& r : dispatch::parseModel(dispatch::JsonDocument::parse(kinds, "model.json")).resources)
    for (size_t piece : {1, 3, 5, 8}) {
      dispatch::ContentsWriter writer(r);
      std::vector<uint8_t> pieces(r.sizeInBytes);
      for (size_t at = 0; at < pieces.size(); at += piece)
        writer.next(&pieces[at], std::min(piece, pieces.size() - at));
      CHECK(pieces == dispatch::initialContents(r));
    }
  model = joinModel();
  model["resources"]["Out"]["sizeInBytes"] = 1ull << 40;
  CHECK(parseError(model.dump()).find("resources.Out.sizeInBytes: the resource would hold 1099511627776 bytes") !=
        std::string::npos);
  // The parser's limit is an option (the fuzzer's is small).
  dispatch::ParseOptions small;
  small.maxResourceBytes = 8;
  auto doc = dispatch::JsonDocument::parse(joinModel().dump(), "model.json");
  CHECK_THROWS_WITH_AS(dispatch::parseModel(doc, small),
                       (where(joinModel().dump(), "[1,2,3,4]") +
                        ": resources.A.initialValues: the resource would hold 16 bytes, more than the 8 a resource may "
                        "hold")
                           .c_str(),
                       dispatch::ModelError);
}

TEST_CASE("dispatch: the model's resources together are held to the device's memory before anything is allocated") {
  // The first resource past the budget is refused where it says its size.
  dispatch::ParseOptions budget;
  budget.maxModelBytes = 24;
  const std::string join = joinModel().dump();
  CHECK_THROWS_WITH_AS(dispatch::parseModel(dispatch::JsonDocument::parse(join, "model.json"), budget),
                       (where(join, "\"valueCount\":4", 13) +
                        ": resources.Out.initialValues.valueCount: the model's resources would hold 32 bytes, more "
                        "than the 24 they may hold together")
                           .c_str(),
                       dispatch::ModelError);
  // On the test device: resources each as large as one may be, one more than fit.
  const dispatch::ParseOptions limits = dispatch::parseOptions(test::device(), {});
  REQUIRE(limits.maxModelBytes < UINT64_MAX / 2);
  auto model = joinModel();
  uint64_t total = 32;  // A and Out
  std::string last;
  for (size_t i = 0; total <= limits.maxModelBytes; ++i) {
    last = "big" + std::to_string(i);
    model["resources"][last] = {
        {"initialValuesDataType", "UINT8"}, {"initialValues", {0}}, {"sizeInBytes", limits.maxResourceBytes}};
    total += limits.maxResourceBytes;
  }
  auto start = std::chrono::steady_clock::now();
  CHECK(parseError(model.dump())
            .find(": resources." + last + ".sizeInBytes: the model's resources would hold " + std::to_string(total) +
                  " bytes, more than the " + std::to_string(limits.maxModelBytes) + " they may hold together\n") !=
        std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
}

TEST_CASE("dispatch: initializers: sequences in the element type, constants, typed lists, files") {
  TempDir dir;
  // A .npy file (as numpy writes one) and a raw file as sources.
  const uint8_t header[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
  std::string npy(reinterpret_cast<const char*>(header), sizeof header);
  std::string dict = "{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }";
  npy += dict + std::string(117 - dict.size(), ' ') + "\n";
  npy += std::string("\x00\x01\xFF\xFE\x01\x00", 6);  // big-endian 1, -2, 256
  dir.write("values.npy", npy);
  dir.write("raw.bin", std::string("\x07\x00\x08\x00", 4));
  const std::string model = R"({
    "resources": {
      "u8": { "initialValuesDataType": "UINT8", "initialValues": { "valueCount": 4, "valueStart": 254, "valueDelta": 1 } },
      "f32": { "initialValuesDataType": "FLOAT32", "initialValues": { "valueCount": 3, "valueStart": 0.1, "valueDelta": 0.2 } },
      "i64": { "initialValuesDataType": "INT64", "initialValues": { "valueCount": 2, "value": -9223372036854775808 } },
      "f64": { "initialValuesDataType": "FLOAT64", "initialValues": ["nan", "-INF", 1e300, 1152921504606846976, -9223372036854775808] },
      "mixed": { "initialValues": [ { "type": "UINT16", "value": 1 }, { "type": "INT8", "value": -1, "name": "x" } ] },
      "npy": { "initialValues": { "sourcePath": "values.npy" } },
      "raw": { "initialValuesDataType": "INT16", "initialValues": { "sourcePath": "raw.bin" } }
    },
    "dispatchables": {},
    "commands": [
      { "type": "print", "resource": "u8", "verbose": true }, { "type": "print", "resource": "f32" },
      { "type": "print", "resource": "i64" }, { "type": "print", "resource": "f64" },
      { "type": "print", "resource": "npy" }, { "type": "print", "resource": "raw" },
      { "type": "writeFile", "resource": "npy", "targetPath": "out/copy.npy", "dimensions": [1, 3] },
      { "type": "writeFile", "resource": "mixed", "targetPath": "mixed.bin" },
      { "type": "print", "resource": "mixed" }
    ]
  })";
  Run r = runModelFile(dir.write("model.json", model), {"--output_path", dir.path.string()});
  CHECK(r.out == runningOn() + "Resource 'u8':\n[0] \xFE (0xFE)\n[1] \xFF (0xFF)\n[2] " + std::string(1, '\0') +
                     " (0x 0)\n[3] \x01 (0x 1)\n\n"
                     "Resource 'f32': 0.1, 0.3, 0.5\n"
                     "Resource 'i64': -9223372036854775808, -9223372036854775808\n"
                     "Resource 'f64': nan, -inf, 1e+300, 1.15292e+18, -9.22337e+18\n"
                     "Resource 'npy': 1, -2, 256\n"
                     "Resource 'raw': 7, 8\n"
                     "Resource 'npy' written to '" +
                     (dir.path / "out/copy.npy").string() + "'\nResource 'mixed' written to '" +
                     (dir.path / "mixed.bin").string() + "'\n");
  // The mixed list has no type to print with; DxDispatch's message.
  CHECK(r.err == "Failed to execute the model: " + (dir.path / "model.json").string() +
                     where(model, "{ \"type\": \"print\", \"resource\": \"mixed\" }").substr(10) +
                     ": Failed to print resource: Unexpected DML_TENSOR_DATA_TYPE\n");
  CHECK(r.code == 1);
  std::ifstream copy(dir.path / "out/copy.npy", std::ios::binary);
  std::string written((std::istreambuf_iterator<char>(copy)), std::istreambuf_iterator<char>());
  CHECK(written.size() == 128 + 6);  // the header padded to a multiple of 64 bytes; the shape's 3 INT16
  CHECK(written.substr(10, 56) == "{'descr':'<i2', 'fortran_order':False, 'shape':(1,3,), }");
  CHECK(written.substr(66, 62) == std::string(61, ' ') + "\n");
  CHECK(written.substr(128, 6) == std::string("\x01\x00\xFE\xFF\x00\x01", 6));
  std::ifstream mixed(dir.path / "mixed.bin", std::ios::binary);
  std::string mixedBytes((std::istreambuf_iterator<char>(mixed)), std::istreambuf_iterator<char>());
  CHECK(mixedBytes == std::string("\x01\x00\xFF\x00", 4));  // packed, then padded to 4
}

TEST_CASE("dispatch: options as DxDispatch's: iterations, repeat, timing lines, usage errors") {
  const std::string model = modelsDir() + "/join_parts.json";
  Run r = runModelFile(model, {"-i", "3", "-r", "2"});
  CHECK(r.code == 0);
  CHECK(std::regex_search(r.out, std::regex(R"(\nDispatch 'join': 3 iterations, \d+\.\d{4} ms median \(CPU\), )"
                                            R"(\d+\.\d{6} ms median \(GPU\)\n)")));
  // Rerunning the join on its own output changes nothing: nothing is reset between iterations.
  CHECK(r.out.find("Resource 'joined': 50, 60, -1, -2, -3, 90, 100, 110, 120\n") != std::string::npos);
  r = runModelFile(model, {"--max_gpu_time_measurements=0", "-v", "2", "--dispatch_iterations=2"});
  CHECK(r.out.find("Dispatch 'join': 2 iterations\nCPU Timings (Cold) : 1 samples, ") != std::string::npos);
  CHECK(r.out.find("GPU Timings") == std::string::npos);
  CHECK(
      std::regex_search(r.out, std::regex(R"(The timings of each iteration: \niteration 0: \d+\.\d{4} ms \(CPU\)\n)")));
  r = runModelFile(model, {"-t", "1"});  // at least one iteration, then the time is up
  CHECK(std::regex_search(r.out, std::regex(R"(Dispatch 'join': [1-9]\d* iterations, )")));

  std::ostringstream out, err;
  CHECK(dispatch::runTool({"--bogus", model}, out, err) == 2);
  CHECK(err.str().rfind("vkdml-dispatch: unknown option '--bogus'\n", 0) == 0);
  CHECK(dispatch::runTool({"-i", "many", model}, out, err) == 2);
  CHECK(dispatch::runTool({"-v", "3", model}, out, err) == 2);
  CHECK(dispatch::runTool({"-i"}, out, err) == 2);
  CHECK(dispatch::runTool({"-d"}, out, err) == 2);  // no model
  std::ostringstream help;
  CHECK(dispatch::runTool({}, help, err) == 0);  // no arguments: the help, as DxDispatch
  CHECK(help.str().find("usage: vkdml-dispatch") != std::string::npos);
  CHECK(dispatch::parseCommandLine({"-i7", "-m", "x.json"}).iterations == 7);
  CHECK(dispatch::parseCommandLine({"--iterations", "9", "x.json"}).iterations == 9);
  CHECK(dispatch::parseCommandLine({"-a", "1", "x.json"}).adapter == "1");
}

TEST_CASE("dispatch: the descriptor builder takes what the parser accepts without reading past an array") {
  // Tensor arrays of every operator with DimensionCount disagreeing with the
  // arrays: each is refused by the builder (or vkdml), never read past.
  const char* ops[] = {
      R"("type": "SLICE1", "InputTensor": {"DataType": "INT8", "Sizes": [4]}, "OutputTensor": {"DataType": "INT8",
         "Sizes": [4]}, "DimensionCount": 2, "InputWindowOffsets": [0], "InputWindowSizes": [4], "InputWindowStrides": [1])",
      R"("type": "CONVOLUTION_INTEGER", "InputTensor": {"DataType": "UINT8", "Sizes": [1, 1, 3, 3]}, "FilterTensor":
         {"DataType": "UINT8", "Sizes": [1, 1, 1, 1]}, "OutputTensor": {"DataType": "INT32", "Sizes": [1, 1, 3, 3]},
         "DimensionCount": 2, "Strides": [1, 1], "Dilations": [1], "StartPadding": [], "EndPadding": [0, 0], "GroupCount": 1)",
  };
  const char* fields[] = {"InputWindowOffsets: has 1 values but DimensionCount is 2",
                          "Dilations: has 1 values but DimensionCount is 2"};
  for (size_t i = 0; i < 2; ++i) {
    std::string text =
        std::string(R"({"resources": {}, "dispatchables": {"op": {)") + ops[i] + R"(}}, "commands": []})";
    auto doc = dispatch::JsonDocument::parse(text, "m.json");
    dispatch::Model model = dispatch::parseModel(doc);
    CHECK_THROWS_WITH_AS(dispatch::buildDescriptor(model.dispatchables[0]), doctest::Contains(fields[i]),
                         dispatch::ModelError);
  }
}

TEST_CASE("dispatch: --list prints the devices and the selected one's features, -v 1 binding properties") {
  std::ostringstream out, err;
  CHECK(dispatch::runTool({"--list"}, out, err) == 0);
  const auto names = vkdml::Device::listPhysicalDevices();
  REQUIRE(!names.empty());
  CHECK(out.str().rfind("Vulkan devices:\n  0: " + names[0] + "\n", 0) == 0);
  for (const char* feature : {"\n  subgroup size: ", "\n  integer dot product: ",
                              "\n  int8 16x16x32 cooperative matrices: ", "\n  shared memory per workgroup: "})
    CHECK(out.str().find(feature) != std::string::npos);
  CHECK(out.str().find("Selected device: ") != std::string::npos);
  CHECK(out.str().find("\nOperators (DML_FEATURE_LEVEL_5_1):\n  DML_JOIN\n    InputTensors: FLOAT32 ") !=
        std::string::npos);
  CHECK(out.str().find("\n    paths: portable") != std::string::npos);
  std::ostringstream none, noneErr;
  CHECK(dispatch::runTool({"-l", "-a", "no such device"}, none, noneErr) == 1);
  CHECK(noneErr.str().rfind("Failed to list the devices: ", 0) == 0);

  // A convolution whose filter is OWNED_BY_DML: initialized once from the
  // dispatchable's bindings, then run (twice) without it.
  const std::string model = R"({
    "resources": {
      "x": {"initialValuesDataType": "UINT8", "initialValues": [1, 2, 3, 4]},
      "w": {"initialValuesDataType": "INT8", "initialValues": [-2]},
      "y": {"initialValuesDataType": "INT32", "initialValues": {"valueCount": 4, "value": 0}}
    },
    "dispatchables": {
      "conv": {
        "type": "CONVOLUTION_INTEGER",
        "desc": {
          "InputTensor": {"DataType": "UINT8", "Sizes": [1, 1, 2, 2]},
          "FilterTensor": {"DataType": "INT8", "Sizes": [1, 1, 1, 1], "Flags": "OWNED_BY_DML"},
          "OutputTensor": {"DataType": "INT32", "Sizes": [1, 1, 2, 2]},
          "DimensionCount": 2, "Strides": [1, 1], "Dilations": [1, 1], "StartPadding": [0, 0],
          "EndPadding": [0, 0], "GroupCount": 1
        },
        "bindings": {"FilterTensor": "w"}
      }
    },
    "commands": [
      {"type": "dispatch", "dispatchable": "conv", "bindings": {"InputTensor": "x", "OutputTensor": "y"}},
      {"type": "print", "resource": "y"}
    ]
  })";
  Run r = runModel(model, {"-v", "1", "-i", "2"});
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("Binding properties 'conv': temporary 0 bytes, persistent 4 bytes\n") != std::string::npos);
  CHECK(r.out.find("Resource 'y': -2, -4, -6, -8\n") != std::string::npos);
}
