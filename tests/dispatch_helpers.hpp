// What the vkdml-dispatch tests share (dispatch_test.cpp,
// dispatch_errors_test.cpp): running a model through the tool's code, and
// where the models are.
#pragma once

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
#include "json.hpp"
#include "model_parser.hpp"
#include "printer.hpp"
#include "support.hpp"
#include "tool.hpp"

namespace test {
namespace models {
namespace fs = std::filesystem;

// A fresh folder under the system's temporary one, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "vkdml-dispatch-test-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return path / name;
  }
};

struct Run {
  int code = -1;
  std::string out, err;
};

inline Run runModelFile(const fs::path& model, std::vector<std::string> args = {}) {
  args.push_back(model.string());
  dispatch::Options options = dispatch::parseCommandLine(args);
  std::ostringstream out, err;
  Run r;
  r.code = dispatch::runOnDevice(test::device(), options, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

inline Run runModel(const std::string& text, std::vector<std::string> args = {}) {
  TempDir dir;
  return runModelFile(dir.write("model.json", text), std::move(args));
}

// The output without its timings, which vary: "... iterations, T ms median
// (CPU), T ms median (GPU)" with the figures' forms checked.
inline std::string withoutTimings(const std::string& out) {
  static const std::regex timing(R"((iterations), \d+\.\d{4} ms median \(CPU\), \d+\.\d{6} ms median \(GPU\))");
  return std::regex_replace(out, timing, "$1, T ms median (CPU), T ms median (GPU)");
}

// "model.json:LINE:COLUMN" of the first `needle` in `text` (`skip` characters on).
inline std::string where(const std::string& text, const std::string& needle, size_t skip = 0) {
  size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  at += skip;
  size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  size_t lineStart = text.rfind('\n', at);
  size_t column = at - (lineStart == std::string::npos ? 0 : lineStart + 1) + 1;
  return "model.json:" + std::to_string(line) + ":" + std::to_string(column);
}

inline std::string runningOn() {
  return "Running on '" + test::device().info().name + "'\n";
}

// The model's parse error (what follows "Failed to parse the model: ").
inline std::string parseError(const std::string& text) {
  Run r = runModel(text);
  CHECK(r.code == 1);
  CHECK(r.out == runningOn());
  const std::string prefix = "Failed to parse the model: ";
  REQUIRE(r.err.rfind(prefix, 0) == 0);
  return r.err.substr(prefix.size());
}

// A small valid model to break in the tests below.
inline nlohmann::ordered_json joinModel() {
  return nlohmann::ordered_json::parse(R"({
    "resources": {
      "A": { "initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4] },
      "Out": { "initialValuesDataType": "FLOAT32", "initialValues": { "valueCount": 4, "value": 0 } }
    },
    "dispatchables": {
      "join": { "type": "DML_OPERATOR_JOIN", "desc": {
        "InputCount": 1, "InputTensors": [{ "DataType": "FLOAT32", "Sizes": [2, 2] }],
        "OutputTensor": { "DataType": "FLOAT32", "Sizes": [2, 2] }, "Axis": 1 } }
    },
    "commands": [
      { "type": "dispatch", "dispatchable": "join", "bindings": { "InputTensors": "A", "OutputTensor": "Out" } },
      { "type": "print", "resource": "Out" }
    ]
  })");
}

inline std::string modelsDir() {
  return VKDML_SOURCE_DIR "/tests/models";
}

// DirectML's DxDispatch/models folder (dml_join.json, dml_slice.json):
// ../shared/dxdispatch/models beside the checkout or $VKDML_DXDISPATCH_MODELS.
inline std::string dxdispatchModelsDir() {
  if (const char* env = std::getenv("VKDML_DXDISPATCH_MODELS")) return env;
  std::string dir = VKDML_SOURCE_DIR "/../shared/dxdispatch/models";
  return fs::exists(dir + "/dml_join.json") ? dir : "";
}

}  // namespace models
}  // namespace test
