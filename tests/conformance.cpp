// The ONNX conformance cases (support.hpp): their tensors from JSON, their
// files by operator, and where they are.
#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "json.hpp"
#include "support.hpp"

namespace test {

Tensor tensorFromJson(const Json& json) {
  DML_TENSOR_DATA_TYPE type = typeFromName(json["dtype"].asString());
  std::vector<uint32_t> sizes;
  for (const auto& s : json["sizes"].items) sizes.push_back(static_cast<uint32_t>(s.asUint()));
  if (sizes.empty()) sizes.push_back(1);  // a scalar
  Tensor t(type, sizes);
  const Json& data = json["data"];
  REQUIRE(data.size() == t.elementCount());
  bool isFloat = type == DML_TENSOR_DATA_TYPE_FLOAT16 || type == DML_TENSOR_DATA_TYPE_FLOAT32 ||
                 type == DML_TENSOR_DATA_TYPE_FLOAT64;
  for (uint64_t i = 0; i < t.elementCount(); ++i) {
    const Json& v = data[i];
    if (isFloat)
      t.set(i, bitsOf(type, v.asDouble()));
    else if (type == DML_TENSOR_DATA_TYPE_UINT64)
      t.set(i, v.asUint());
    else
      t.set(i, bitsOfInteger(type, v.asInt()));
  }
  return t;
}

std::vector<std::string> conformanceCases(const std::string& op) {
  std::vector<std::string> paths;
  std::string dir = conformanceDir();
  if (dir.empty()) return paths;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() < 5 || name.substr(name.size() - 5) != ".json") continue;
      std::string path = dir + "/" + name;
      if (Json::parseFile(path)["op"].asString() == op) paths.push_back(path);
    }
    closedir(d);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

void forEachConformanceCase(const std::string& op, size_t expected, const std::function<void(const Json&)>& check) {
  if (conformanceDir().empty()) {
    MESSAGE("skipped: ../shared/conformance/onnx is absent (set VKDML_CONFORMANCE_DIR)");
    return;
  }
  std::vector<std::string> cases = conformanceCases(op);
  REQUIRE(cases.size() >= expected);
  for (const auto& path : cases) {
    CAPTURE(path);
    check(Json::parseFile(path));
  }
}

std::string conformanceDir() {
  if (const char* env = std::getenv("VKDML_CONFORMANCE_DIR")) return env;
  std::string dir = VKDML_SOURCE_DIR "/../shared/conformance/onnx";
  if (std::FILE* f = std::fopen((dir + "/test_slice.json").c_str(), "rb")) {
    std::fclose(f);
    return dir;
  }
  return "";
}

}  // namespace test
