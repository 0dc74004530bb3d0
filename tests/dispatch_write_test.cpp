// vkdml-dispatch's writeFile: a write that fails is an error at its command
// (and the run fails), and a .npy file holds exactly the shape it declares.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dispatch_helpers.hpp"
#include "npy.hpp"

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

std::string readFile(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
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

TEST_CASE("dispatch: writeFile's .npy holds exactly its shape, and a long header takes format version 2") {
  TempDir dir;
  // More elements than the resource holds: refused, nothing written.
  std::string text = writeModel("v.npy", {3, 5}).dump();
  Run r = runIn(dir, text);
  CHECK(r.code == 1);
  CHECK(r.err == writeError(dir, text, dir.path / "v.npy",
                            "the shape (3,5) holds 15 FLOAT32 elements, more than the resource's 32 bytes hold (8)"));
  CHECK(!fs::exists(dir.path / "v.npy"));
  // Fewer: the file holds those, and nothing after them.
  for (const auto& dimensions : std::vector<std::vector<uint32_t>>{{3}, {2, 4}, {}}) {
    CAPTURE(dimensions.size());
    r = runIn(dir, writeModel("v.npy", dimensions).dump());
    CHECK(r.err == "");
    CHECK(r.code == 0);
    std::string file = readFile(dir.path / "v.npy");
    dispatch::NpyArray array = dispatch::readNpy({file.begin(), file.end()});
    const uint32_t count = dimensions.empty() ? 8 : dimensions.size() == 1 ? 3 : 8;
    CHECK(array.shape == (dimensions.empty() ? std::vector<uint32_t>{8} : dimensions));
    CHECK(array.data.size() == count * 4);
    CHECK(file.size() == 128 + count * 4);  // the header, padded to 64 bytes; the data
  }
  // A header past version 1's 65535 bytes: version 2's 4-byte length, still aligned to 64.
  std::vector<uint32_t> dimensions(40000, 1);
  dimensions.push_back(8);
  r = runIn(dir, writeModel("long.npy", dimensions).dump());
  CHECK(r.err == "");
  std::string file = readFile(dir.path / "long.npy");
  REQUIRE(file.size() > 12);
  CHECK(file[6] == 2);
  const uint32_t headerLength = uint8_t(file[8]) | uint32_t(uint8_t(file[9])) << 8 | uint32_t(uint8_t(file[10])) << 16 |
                                uint32_t(uint8_t(file[11])) << 24;
  CHECK(headerLength > 65535);
  CHECK((12 + headerLength) % 64 == 0);
  CHECK(file.size() == 12 + headerLength + 32);
  dispatch::NpyArray array = dispatch::readNpy({file.begin(), file.end()});
  CHECK(array.shape == dimensions);
  CHECK(array.data == std::vector<uint8_t>(file.end() - 32, file.end()));
}

TEST_CASE("dispatch: a .npy shape is a tuple of integers, read strictly") {
  // A version 1 .npy of INT16 with the given shape text and 64 bytes of data.
  auto npy = [](const std::string& shape) {
    std::string dict = "{'descr': '<i2', 'fortran_order': False, 'shape': " + shape + ", }";
    dict += std::string(63 - (10 + dict.size()) % 64, ' ') + "\n";
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(dict.size() & 0xFF);
    file += static_cast<char>(dict.size() >> 8);
    file += dict + std::string(64, '\x01');
    return std::vector<uint8_t>(file.begin(), file.end());
  };
  const std::pair<const char*, std::vector<uint32_t>> good[] = {
      {"()", {}}, {"(3,)", {3}}, {"(1, 3)", {1, 3}}, {"( 2 , 3 , )", {2, 3}}, {"(3)", {3}}, {"(0,)", {0}}};
  for (const auto& [shape, dims] : good) {
    CAPTURE(shape);
    CHECK(dispatch::readNpy(npy(shape)).shape == dims);
  }
  const std::pair<const char*, const char*> bad[] = {
      {"(2.5,)", "the .npy header's shape (2.5,) is not a tuple of integers: '.' after a dimension, not ',' or ')'"},
      {"(-3,)",
       "the .npy header's shape (-3,) is not a tuple of integers: '-' where a dimension (a non-negative "
       "integer) belongs"},
      {"(2 3)", "the .npy header's shape (2 3) is not a tuple of integers: '3' after a dimension, not ',' or ')'"},
      {"(,)", "the .npy header's shape (,) is not a tuple of integers: ',' where a dimension"},
      {"(2,,3)", "the .npy header's shape (2,,3) is not a tuple of integers: ',' where a dimension"},
      {"(3L,)", "the .npy header's shape (3L,) is not a tuple of integers: 'L' after a dimension"},
      {"(4294967296,)", "a dimension of the shape (4294967296,) exceeds 2^32 - 1"},
  };
  for (const auto& [shape, message] : bad) {
    CAPTURE(shape);
    CHECK_THROWS_WITH_AS(dispatch::readNpy(npy(shape)), doctest::Contains(message), std::runtime_error);
  }
  // Through a model: the error names the file and the field.
  TempDir dir;
  const auto bytes = npy("(-3,)");
  dir.write("bad.npy", std::string(bytes.begin(), bytes.end()));
  const std::string text = R"({"resources": {"r": {"initialValues": {"sourcePath": "bad.npy"}}}, "dispatchables": {},
    "commands": [{"type": "print", "resource": "r"}]})";
  Run r = runModelFile(dir.write("model.json", text));
  CHECK(r.code == 1);
  CHECK(r.err.find("resources.r.initialValues.sourcePath: '" + (dir.path / "bad.npy").string() +
                   "': the .npy header's shape (-3,) is not a tuple of integers") != std::string::npos);
}
