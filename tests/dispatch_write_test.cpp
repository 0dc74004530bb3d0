// vkdml-dispatch's writeFile: a write that fails is an error at its command
// (and the run fails).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dispatch_helpers.hpp"

namespace fs = std::filesystem;
using namespace test::models;

namespace {

// 8 FLOAT32 values (32 bytes: 0, 1, ... 7) and one writeFile of them.
nlohmann::ordered_json writeModel(const std::string& targetPath, const std::vector<uint32_t>& dimensions = {}) {
  auto model = nlohmann::ordered_json::parse(R"({"resources": {"v": {"initialValuesDataType": "FLOAT32",
      "initialValues": {"valueCount": 8, "valueStart": 0, "valueDelta": 1}}}, "dispatchables": {}, "commands": []})");
  nlohmann::ordered_json command = {{"type", "writeFile"}, {"resource", "v"}, {"targetPath", targetPath}};
  if (!dimensions.empty()) command["dimensions"] = dimensions;
  model["commands"].push_back(command);
  return model;
}

// The run of a one-command model in `dir` (written there as model.json, output there too).
Run runIn(const TempDir& dir, const std::string& text) {
  return runModelFile(dir.write("model.json", text), {"--output_path", dir.path.string()});
}

// "Failed to execute the model: DIR/model.json:L:C: Failed to write resource to file 'TARGET': WHY\n"
std::string writeError(const TempDir& dir, const std::string& text, const fs::path& target, const std::string& why) {
  return "Failed to execute the model: " + (dir.path / "model.json").string() +
         where(text, "{\"type\":\"writeFile\"").substr(10) + ": Failed to write resource to file '" + target.string() +
         "': " + why + "\n";
}

}  // namespace

TEST_CASE("dispatch: a writeFile that fails is an error at its command, and the run fails") {
  TempDir dir;
  std::string text = writeModel(".").dump();  // the output folder itself
  Run r = runIn(dir, text);
  CHECK(r.code == 1);
  CHECK(r.out.find("written") == std::string::npos);
  CHECK(r.err == writeError(dir, text, dir.path / ".", "cannot open it: Is a directory"));
  // A folder that cannot be made: model.json is a file.
  text = writeModel("model.json/v.bin").dump();
  r = runIn(dir, text);
  CHECK(r.code == 1);
  CHECK(r.err == writeError(dir, text, dir.path / "model.json/v.bin", "cannot make its folder: Not a directory"));
  // An error only at the end (the data was buffered until the file was closed).
  if (fs::exists("/dev/full")) {
    text = writeModel("/dev/full").dump();
    r = runIn(dir, text);
    CHECK(r.code == 1);
    CHECK(r.out.find("written") == std::string::npos);
    CHECK(r.err == writeError(dir, text, "/dev/full", "cannot write it: No space left on device"));
  }
}
