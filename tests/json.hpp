// The conformance cases' JSON, parsed by nlohmann-json. Numbers keep their
// text (integers as nlohmann read them, in 64 bits), so 64-bit integers
// convert exactly.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace test {

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  std::string text;  // Number: as written; String: the decoded string
  std::vector<Json> items;
  std::map<std::string, Json> members;

  static Json parse(const std::string& source);
  static Json parseFile(const std::string& path);

  bool has(const std::string& key) const { return members.count(key) != 0; }
  const Json& operator[](const std::string& key) const;
  const Json& operator[](size_t index) const { return items.at(index); }
  size_t size() const { return kind == Kind::Array ? items.size() : members.size(); }
  int64_t asInt() const;
  uint64_t asUint() const;
  double asDouble() const;  // also "NaN", "Infinity", "-Infinity"
  const std::string& asString() const;
  // The bits of this number stored as a DML data type (see support.hpp).
};

}  // namespace test
