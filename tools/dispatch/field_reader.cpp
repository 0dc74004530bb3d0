#include "field_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>

#include "data_types.hpp"

namespace dispatch {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Strips an optional prefix ("DML_OPERATOR_") from an enum name.
std::string withoutPrefix(const std::string& name, const char* prefix) {
  return name.rfind(prefix, 0) == 0 ? name.substr(std::strlen(prefix)) : name;
}

std::string describe(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::Int:
      return std::to_string(v.integer);
    case JsonValue::Kind::Uint:
      return std::to_string(v.unsigned_);
    case JsonValue::Kind::Float: {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.17g", v.number);
      return buffer;
    }
    case JsonValue::Kind::String:
      return "\"" + v.string + "\"";
    default:
      return kindName(v.kind);
  }
}

Object::Object(FieldReader& reader, const JsonValue& value, std::string path)
    : reader_(reader), value_(value), path_(std::move(path)) {
  if (value.kind != JsonValue::Kind::Object)
    reader.fail(value, path_, std::string("expected a non-null JSON object, got ") + describe(value));
  used_.assign(value.members.size(), false);
}

Object::~Object() {
  if (std::uncaught_exceptions() > 0) return;  // the parse failed: no warnings wanted
  for (size_t i = 0; i < used_.size(); ++i)
    if (!used_[i])
      reader_.warn(value_.keyOffsets[i],
                   path(value_.members[i].first) + ": unknown field, ignored (as DxDispatch does)");
}

namespace {
constexpr size_t kNone = static_cast<size_t>(-1);
constexpr size_t kIndexFrom = 8;  // members from which lookups go through a hash index
}  // namespace

size_t Object::first(std::string_view key) {
  const auto& members = value_.members;
  if (members.size() < kIndexFrom) {
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i].first == key) return i;
    return kNone;
  }
  if (nextIndex_.empty()) {
    nextIndex_.assign(members.size(), kNone);
    std::unordered_map<std::string_view, size_t> last;
    for (size_t i = 0; i < members.size(); ++i) {
      auto [at, fresh] = last.emplace(members[i].first, i);
      if (fresh) {
        firstIndex_.emplace(members[i].first, i);
      } else {
        nextIndex_[at->second] = i;
        at->second = i;
      }
    }
  }
  auto it = firstIndex_.find(key);
  return it == firstIndex_.end() ? kNone : it->second;
}

size_t Object::next(size_t i) {
  const auto& members = value_.members;
  if (members.size() >= kIndexFrom) return nextIndex_[i];
  for (size_t j = i + 1; j < members.size(); ++j)
    if (members[j].first == members[i].first) return j;
  return kNone;
}

const JsonValue* Object::optional(std::string_view key) {
  const size_t found = first(key);
  if (found == kNone) return nullptr;
  if (!used_[found]) {  // the key's first lookup: its duplicates are warned about once
    used_[found] = true;
    size_t second = kNone, repeats = 0;
    for (size_t i = next(found); i != kNone; i = next(i)) {
      used_[i] = true;
      if (second == kNone) second = i;
      ++repeats;
    }
    if (repeats)
      reader_.warn(value_.keyOffsets[second],
                   path(std::string(key)) + ": duplicate field" +
                       (repeats > 1 ? " (" + std::to_string(repeats) + " more times)" : std::string()) +
                       ", ignored (the first one counts)");
  }
  return &value_.members[found].second;
}

const JsonValue& Object::required(std::string_view key) {
  if (const JsonValue* v = optional(key)) return *v;
  reader_.fail(value_, path_, "field '" + std::string(key) + "' is required");
}

using Kind = JsonValue::Kind;

uint64_t FieldReader::unsignedInteger(const JsonValue& v, const std::string& path, uint64_t max) const {
  if (v.kind != Kind::Uint || v.unsigned_ > max)
    fail(v, path, "expected an unsigned integer <= " + std::to_string(max) + ", got " + describe(v));
  return v.unsigned_;
}

int64_t FieldReader::signedInteger(const JsonValue& v, const std::string& path, int64_t min, int64_t max) const {
  bool ok = (v.kind == Kind::Int && v.integer >= min && v.integer <= max) ||
            (v.kind == Kind::Uint && v.unsigned_ <= static_cast<uint64_t>(max));
  if (!ok)
    fail(v, path,
         "expected a signed integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + describe(v));
  return v.kind == Kind::Int ? v.integer : static_cast<int64_t>(v.unsigned_);
}

double FieldReader::floating(const JsonValue& v, const std::string& path) const {
  if (v.kind == Kind::Float) return v.number;
  if (v.kind == Kind::Uint) {
    double d = static_cast<double>(v.unsigned_);
    if (d < 18446744073709551616.0 && static_cast<uint64_t>(d) == v.unsigned_) return d;
  }
  if (v.kind == Kind::Int) {
    double d = static_cast<double>(v.integer);  // >= -2^63, so the cast back is defined
    if (static_cast<int64_t>(d) == v.integer) return d;
  }
  if (v.kind == Kind::String) {
    std::string s = lower(v.string);
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  fail(v, path, "expected a number (or \"nan\", \"inf\", \"-inf\"), got " + describe(v));
}

uint64_t FieldReader::elementBits(const JsonValue& v, DML_TENSOR_DATA_TYPE type, const std::string& path) const {
  switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT16:
      return halfTruncated(static_cast<float>(floating(v, path)));
    case DML_TENSOR_DATA_TYPE_FLOAT32: {
      float f = static_cast<float>(floating(v, path));
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    case DML_TENSOR_DATA_TYPE_FLOAT64: {
      double d = floating(v, path);
      uint64_t b;
      std::memcpy(&b, &d, 8);
      return b;
    }
    case DML_TENSOR_DATA_TYPE_UINT8:
      return unsignedInteger(v, path, UINT8_MAX);
    case DML_TENSOR_DATA_TYPE_UINT16:
      return unsignedInteger(v, path, UINT16_MAX);
    case DML_TENSOR_DATA_TYPE_UINT32:
      return unsignedInteger(v, path, UINT32_MAX);
    case DML_TENSOR_DATA_TYPE_UINT64:
      return unsignedInteger(v, path, UINT64_MAX);
    case DML_TENSOR_DATA_TYPE_INT8:
      return static_cast<uint8_t>(signedInteger(v, path, INT8_MIN, INT8_MAX));
    case DML_TENSOR_DATA_TYPE_INT16:
      return static_cast<uint16_t>(signedInteger(v, path, INT16_MIN, INT16_MAX));
    case DML_TENSOR_DATA_TYPE_INT32:
      return static_cast<uint32_t>(signedInteger(v, path, INT32_MIN, INT32_MAX));
    case DML_TENSOR_DATA_TYPE_INT64:
      return static_cast<uint64_t>(signedInteger(v, path, INT64_MIN, INT64_MAX));
    default:
      fail(v, path, std::string("no values of data type ") + vkdml::toString(type));
  }
}

std::vector<uint32_t> FieldReader::uint32Array(const JsonValue& v, const std::string& path) const {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < array(v, path).items.size(); ++i)
    out.push_back(uint32(v.items[i], path + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<int32_t> FieldReader::int32Array(const JsonValue& v, const std::string& path) const {
  std::vector<int32_t> out;
  for (size_t i = 0; i < array(v, path).items.size(); ++i)
    out.push_back(int32(v.items[i], path + "[" + std::to_string(i) + "]"));
  return out;
}

DML_TENSOR_DATA_TYPE FieldReader::dataType(const JsonValue& v, const std::string& path) const {
  auto type = dataTypeFromName(string(v, path));
  if (!type)
    fail(v, path,
         "'" + v.string +
             "' is not a recognized value for DML_TENSOR_DATA_TYPE (FLOAT32, FLOAT16, FLOAT64, UINT8..UINT64, "
             "INT8..INT64, with or without the DML_TENSOR_DATA_TYPE_ prefix)");
  return *type;
}

uint32_t FieldReader::flags(const JsonValue& v, const std::string& path, const char* prefix,
                            const std::vector<std::pair<const char*, uint32_t>>& table) const {
  auto one = [&](const JsonValue& item, const std::string& itemPath) -> uint32_t {
    std::string name = withoutPrefix(string(item, itemPath), prefix);
    for (const auto& entry : table)
      if (name == entry.first) return entry.second;
    std::string known;
    for (const auto& entry : table) known += (known.empty() ? "" : ", ") + std::string(entry.first);
    fail(item, itemPath, "'" + item.string + "' is not a recognized value of " + prefix + "* (" + known + ")");
  };
  if (v.kind != Kind::Array) return one(v, path);
  uint32_t bits = 0;
  for (size_t i = 0; i < v.items.size(); ++i) bits |= one(v.items[i], path + "[" + std::to_string(i) + "]");
  return bits;
}

}  // namespace dispatch
