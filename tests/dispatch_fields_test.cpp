// vkdml-dispatch: what the reader does with a key written many times and
// with unknown top-level fields, DIAGONAL_MATRIX Values the output type
// cannot hold, element offsets without an element size, where vkdml's
// binding errors point, and how many elements print shows.
#include <nlohmann/json.hpp>

#include <regex>
#include <string>

#include "dispatch_helpers.hpp"
#include "json.hpp"
#include "model_parser.hpp"
#include "support.hpp"

using namespace test::models;

TEST_CASE("dispatch: a key written many times is warned about once, and many names are looked up in constant time") {
  // A binding repeated 2000 times: one warning (once per repeat per lookup
  // made k(k-1) of them, and a few thousand repeats exhausted memory).
  constexpr int kRepeats = 2000;
  std::string bindings = R"("InputTensors": "A")";
  for (int i = 0; i < kRepeats; ++i) bindings += R"(, "OutputTensor": "Out")";
  std::string text = joinModel().dump();
  const std::string original = R"("InputTensors":"A","OutputTensor":"Out")";
  REQUIRE(text.find(original) != std::string::npos);
  text.replace(text.find(original), original.size(), bindings);
  dispatch::Model model = dispatch::parseModel(dispatch::JsonDocument::parse(text, "model.json"));
  REQUIRE(model.warnings.size() == 1);
  const std::string repeat = R"("OutputTensor": "Out")";
  CHECK(model.warnings[0] == "model.json:1:" + std::to_string(text.find(repeat, text.find(repeat) + 1) + 1) +
                                 ": commands[0].bindings.OutputTensor: duplicate field (" +
                                 std::to_string(kRepeats - 1) + " more times), ignored (the first one counts)");
  REQUIRE(model.commands.size() == 2);
  const auto& dispatch = std::get<dispatch::DispatchCommand>(model.commands[0].command);
  CHECK(dispatch.bindings.size() == 2);  // InputTensors, and the first OutputTensor
  // Any object's fields, and a small object's (looked up without an index).
  std::string fields = R"({"resources": {"r": {"initialValuesDataType": "INT32", "initialValues": [1])";
  for (int i = 0; i < kRepeats; ++i) fields += R"(, "initialValuesDataType": "INT8")";
  fields += R"(}, "s": {"initialValues": [{"type": "INT32", "value": 1, "value": 2, "value": 3}]}},
    "dispatchables": {}, "commands": []})";
  model = dispatch::parseModel(dispatch::JsonDocument::parse(fields, "model.json"));
  REQUIRE(model.warnings.size() == 2);
  CHECK(model.warnings[0].find(": resources.r.initialValuesDataType: duplicate field (" + std::to_string(kRepeats) +
                               " more times), ignored") != std::string::npos);
  CHECK(model.warnings[1].find(": resources.s.initialValues[0].value: duplicate field (2 more times), ignored") !=
        std::string::npos);
  CHECK(model.resources[0].dataType == DML_TENSOR_DATA_TYPE_INT32);  // the first one counts
  // Many resources: a second of a name is still found, at its key.
  std::string many = R"({"resources": {)";
  for (int i = 0; i < 20000; ++i)
    many += "\"r" + std::to_string(i) + R"(": {"initialValuesDataType": "UINT8", "initialValues": [1]}, )";
  many += R"("r123": {"initialValuesDataType": "UINT8", "initialValues": [1]}}, "dispatchables": {},
    "commands": [{"type": "print", "resource": "r19999"}]})";
  CHECK_THROWS_WITH_AS(dispatch::parseModel(dispatch::JsonDocument::parse(many, "model.json")),
                       ("model.json:1:" + std::to_string(many.rfind("\"r123\"") + 1) +
                        ": resources.r123: a second resource of that name")
                           .c_str(),
                       dispatch::ModelError);
}

TEST_CASE("dispatch: unknown top-level fields are named with -v 1") {
  auto model = joinModel();
  model["comment"] = "a note";
  const std::string text = model.dump(2);
  Run r = runModel(text, {"-v", "1"});
  CHECK(r.code == 0);
  CHECK(r.err.find(where(text, "\"comment\"") + ": comment: unknown field, ignored (as DxDispatch does)") !=
        std::string::npos);
  CHECK(runModel(text).err == "");  // without -v 1, nothing
}

TEST_CASE("dispatch: DIAGONAL_MATRIX's Value is refused where the output type cannot hold it, never made infinite") {
  const char* diagonal = R"({"resources": {"m": {"initialValuesDataType": "%TYPE%", "initialValues":
      {"valueCount": 6, "value": 0}}}, "dispatchables": {"d": {"type": "DIAGONAL_MATRIX", "desc": {"OutputTensor":
      {"DataType": "%TYPE%", "Sizes": [2, 3]}, "Offset": 0, "Value": %VALUE%}}},
    "commands": [{"type": "dispatch", "dispatchable": "d", "bindings": {"OutputTensor": "m"}},
      {"type": "print", "resource": "m"}]})";
  auto diag = [&](const char* type, const char* value) {
    std::string s = std::regex_replace(diagonal, std::regex("%TYPE%"), type);
    return runModel(std::regex_replace(s, std::regex("%VALUE%"), value));
  };
  const std::string prefix = "dispatchables.d: DML_OPERATOR_DIAGONAL_MATRIX: Value: ";
  // Finite values beyond the output's finite range (or FLOAT's, the Value's type).
  CHECK(diag("FLOAT16", "1e5").err.find(prefix + "the output type FLOAT16 cannot hold 100000\n") != std::string::npos);
  CHECK(diag("FLOAT16", "65520").err.find(prefix + "the output type FLOAT16 cannot hold 65520\n") != std::string::npos);
  CHECK(diag("FLOAT32", "1e39").err.find(prefix + "the output type FLOAT32 cannot hold 1e+39\n") != std::string::npos);
  CHECK(diag("FLOAT32", "-1e300").err.find(prefix + "the output type FLOAT32 cannot hold -1e+300\n") !=
        std::string::npos);
  CHECK(diag("FLOAT64", "1e39")
            .err.find(prefix + "1e+39 is beyond the range of FLOAT, the type of DIAGONAL_MATRIX's "
                               "Value\n") != std::string::npos);
  // Integer outputs name the value as written, not "inf".
  CHECK(diag("INT32", "1e39").err.find(prefix + "the output type INT32 cannot hold 1e+39\n") != std::string::npos);
  CHECK(diag("UINT64", "1e20").err.find(prefix + "the output type UINT64 cannot hold 1e+20\n") != std::string::npos);
  CHECK(diag("INT32", "2147483647")
            .err.find(prefix + "the output type INT32 cannot hold 2147483647 (2147483648 as a "
                               "FLOAT)\n") != std::string::npos);
  // What the types hold: the largest finite values, and "inf"/"nan" for floats (as initial values take them).
  CHECK(diag("FLOAT16", "65519").out.find("Resource 'm': 65504, 0, 0, 0, 65504, 0\n") != std::string::npos);
  CHECK(diag("FLOAT32", "3.4028234663852886e38").out.find("Resource 'm': 3.40282e+38, 0, 0, 0, 3.40282e+38, 0\n") !=
        std::string::npos);
  CHECK(diag("FLOAT32", "\"inf\"").out.find("Resource 'm': inf, 0, 0, 0, inf, 0\n") != std::string::npos);
  CHECK(diag("FLOAT16", "\"-inf\"").out.find("Resource 'm': -inf, 0, 0, 0, -inf, 0\n") != std::string::npos);
  CHECK(diag("FLOAT64", "\"nan\"").out.find("Resource 'm': nan, 0, 0, 0, nan, 0\n") != std::string::npos);
  CHECK(diag("INT32", "-2147483648").out.find("Resource 'm': -2147483648, 0, 0, 0, -2147483648, 0\n") !=
        std::string::npos);
}

TEST_CASE("dispatch: an elementOffset needs an element size: a resource without a data type is refused") {
  auto model = joinModel();
  model["resources"]["M"] = {{"initialValues", nlohmann::ordered_json::array()}};
  for (int v = 1; v <= 8; ++v) model["resources"]["M"]["initialValues"].push_back({{"type", "FLOAT32"}, {"value", v}});
  model["commands"][0]["bindings"]["InputTensors"] = {{{"name", "M"}, {"elementOffset", 4}}};
  std::string text = model.dump();
  const std::string error = parseError(text);
  CHECK(error.find("/" + where(text, "{\"name\":\"M\"") +
                   ": commands[0].bindings.InputTensors.elementOffset: resource 'M' has no data type (no "
                   "initialValuesDataType) to count 4 elements in; give elementSizeInBytes\n") != std::string::npos);
  // With elementSizeInBytes, the offset counts.
  model["commands"][0]["bindings"]["InputTensors"][0]["elementSizeInBytes"] = 4;
  Run r = runModel(model.dump());
  CHECK(r.err == "");
  CHECK(r.out.find("Resource 'Out': 5, 6, 7, 8\n") != std::string::npos);
}

TEST_CASE("dispatch: vkdml's binding errors are printed once, at the binding, naming its resource") {
  // "model.json:LINE:COLUMN" of the '{' before the first `needle` after `after`.
  auto objectBefore = [](const std::string& text, const std::string& after, const std::string& needle) {
    const size_t at = text.rfind('{', text.find(needle, text.find(after)));
    const size_t lineStart = text.rfind('\n', at) + 1;  // the text starts with '{', not a line break
    return "model.json:" + std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) +
           ":" + std::to_string(at - lineStart + 1);
  };
  // A holds 7 values: from element 4 on (16 bytes in, an aligned offset), 12 bytes, 4 too few.
  auto model = joinModel();
  model["resources"]["A"]["initialValues"] = {1, 2, 3, 4, 5, 6, 7};
  model["commands"][0]["bindings"]["InputTensors"] = {{{"name", "A"}, {"elementOffset", 4}}};
  const std::string text = model.dump(2);
  Run r = runModel(text);
  CHECK(r.code == 1);
  CHECK(r.out.find("Compile Op\n") != std::string::npos);
  INFO(r.err);
  CHECK(r.err.rfind("Failed to execute the model: ", 0) == 0);
  CHECK(r.err.find("/" + objectBefore(text, "\"commands\"", "\"name\": \"A\"") +
                   ": ERROR while binding resources: DML_JOIN: inputs[0] (InputTensors[0]).SizeInBytes: must cover "
                   "TotalTensorSizeInBytes = 16, not 12 (resource 'A' from element 4)\n") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // once
  // The output side too: Out holds 6 values, 8 bytes from element 4 on.
  model = joinModel();
  model["resources"]["Out"]["initialValues"]["valueCount"] = 6;
  model["commands"][0]["bindings"]["OutputTensor"] = {{"name", "Out"}, {"elementOffset", 4}};
  const std::string out = model.dump(2);
  r = runModel(out);
  CHECK(r.err.find("/" + objectBefore(out, "\"commands\"", "\"name\": \"Out\"") +
                   ": ERROR while binding resources: DML_JOIN: outputs[0] (OutputTensor).SizeInBytes: must cover "
                   "TotalTensorSizeInBytes = 16, not 8 (resource 'Out' from element 4)\n") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("dispatch: print shows the initial values' elements, as DxDispatch, whatever the buffer's size") {
  // DxDispatch's print sets the buffer's size to its initial values' before
  // taking max(sizeInBytes, initial values): the padding and an explicit
  // larger sizeInBytes are not shown (values written there are not).
  auto model = joinModel();
  model["resources"]["Out"] = {{"initialValuesDataType", "FLOAT32"}, {"initialValues", {0, 0}}, {"sizeInBytes", 16}};
  Run r = runModel(model.dump());
  CHECK(r.err == "");
  CHECK(r.out.find("Resource 'Out': 1, 2\n") != std::string::npos);
}
