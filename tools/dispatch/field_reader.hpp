// Reading a model's JSON values into typed fields, as DxDispatch's parsers
// convert them (integers exact and range-checked, floats from numbers or
// "nan"/"inf"/"-inf", enum names with or without their prefix). Every
// failure is a ModelError at the value's line and column naming its path in
// the model; members never read are collected as warnings.
#pragma once

#include <vkdml/DirectML.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "json_document.hpp"
#include "model_parser.hpp"

namespace dispatch {

std::string lower(std::string s);
// "DML_OPERATOR_JOIN" -> "JOIN" for the prefix "DML_OPERATOR_"; other names unchanged.
std::string withoutPrefix(const std::string& name, const char* prefix);
std::string describe(const JsonValue& v);  // 42, "text", an object, ...

class FieldReader;

// A JSON object being read: fields are taken by name; members never taken
// are reported as warnings (DxDispatch ignores unknown members).
class Object {
 public:
  Object(FieldReader& reader, const JsonValue& value, std::string path);
  ~Object();
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  // Keys compare whole: a JSON key may hold "\u0000", which a C string would cut short.
  // The first member of that name; the first lookup of a key written more
  // than once warns once, at its second occurrence. Each call takes constant
  // time (an index of the keys is built for larger objects), so reading
  // every key of an object is linear in its size.
  const JsonValue* optional(std::string_view key);
  const JsonValue& required(std::string_view key);
  void ignore(std::string_view key) { optional(key); }  // known to DxDispatch, no effect here
  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const std::string& path() const { return path_; }
  const JsonValue& value() const { return value_; }

 private:
  size_t first(std::string_view key);  // the first member named key, or npos
  size_t next(size_t i);               // the next member after i with i's key, or npos

  FieldReader& reader_;
  const JsonValue& value_;
  std::string path_;
  std::vector<bool> used_;
  // For objects of more than a few members, built at the first lookup.
  std::unordered_map<std::string_view, size_t> firstIndex_;
  std::vector<size_t> nextIndex_;
};

class FieldReader {
 public:
  using Kind = JsonValue::Kind;

  FieldReader(const JsonDocument& document, const ParseOptions& options) : doc_(document), options_(options) {}

  [[noreturn]] void fail(const JsonValue& at, const std::string& path, const std::string& message) const {
    throw ModelError(doc_.locate(at), path.empty() ? message : path + ": " + message);
  }
  void warn(size_t offset, const std::string& message) {
    warnings.push_back(doc_.locate(offset).str() + ": " + message);
  }
  Location locate(const JsonValue& v) const { return doc_.locate(v); }

  // Scalars.
  const std::string& string(const JsonValue& v, const std::string& path) const {
    if (v.kind != Kind::String) fail(v, path, std::string("expected a string, got ") + describe(v));
    return v.string;
  }
  // A file's name: a string without "\u0000", which the system would take
  // for the name's end (another file than the one named).
  const std::string& fileName(const JsonValue& v, const std::string& path) const {
    const std::string& name = string(v, path);
    if (name.find('\0') != std::string::npos) fail(v, path, "a file name cannot hold \\u0000");
    return name;
  }
  uint64_t unsignedInteger(const JsonValue& v, const std::string& path, uint64_t max) const;
  uint32_t uint32(const JsonValue& v, const std::string& path) const {
    return static_cast<uint32_t>(unsignedInteger(v, path, UINT32_MAX));
  }
  int64_t signedInteger(const JsonValue& v, const std::string& path, int64_t min, int64_t max) const;
  int32_t int32(const JsonValue& v, const std::string& path) const {
    return static_cast<int32_t>(signedInteger(v, path, INT32_MIN, INT32_MAX));
  }
  // A number (integers only where a double holds them exactly, as
  // RapidJSON's IsLosslessDouble) or "nan", "inf", "-inf" in any case
  // (DxDispatch's ParseFloatingPointNumber).
  double floating(const JsonValue& v, const std::string& path) const;
  bool boolean(const JsonValue& v, const std::string& path) const {
    if (v.kind != Kind::Bool) fail(v, path, "expected true or false, got " + describe(v));
    return v.boolean;
  }
  // One element of `type` from a JSON value, as its bits (zero-extended).
  uint64_t elementBits(const JsonValue& v, DML_TENSOR_DATA_TYPE type, const std::string& path) const;
  const JsonValue& array(const JsonValue& v, const std::string& path) const {
    if (v.kind != Kind::Array) fail(v, path, std::string("expected an array, got ") + describe(v));
    return v;
  }
  std::vector<uint32_t> uint32Array(const JsonValue& v, const std::string& path) const;
  std::vector<int32_t> int32Array(const JsonValue& v, const std::string& path) const;
  DML_TENSOR_DATA_TYPE dataType(const JsonValue& v, const std::string& path) const;
  // A string or an array of strings naming flags of a table, OR'd.
  uint32_t flags(const JsonValue& v, const std::string& path, const char* prefix,
                 const std::vector<std::pair<const char*, uint32_t>>& table) const;

  const ParseOptions& options() const { return options_; }
  std::vector<std::string> warnings;  // members DxDispatch ignores, with where they are
  uint64_t resourceBytes = 0;         // the buffers of the resources read so far
  const JsonDocument& document() const { return doc_; }

 private:
  const JsonDocument& doc_;
  const ParseOptions& options_;
};

}  // namespace dispatch
