#include "model_parser.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>

#include "data_types.hpp"
#include "descriptors.hpp"
#include "npy.hpp"

namespace dispatch {

namespace {

using Kind = JsonValue::Kind;

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
    case Kind::Int:
      return std::to_string(v.integer);
    case Kind::Uint:
      return std::to_string(v.unsigned_);
    case Kind::Float: {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.17g", v.number);
      return buffer;
    }
    case Kind::String:
      return "\"" + v.string + "\"";
    default:
      return kindName(v.kind);
  }
}

class Parser;

// A JSON object being read: fields are taken by name; members never taken
// are reported as warnings (DxDispatch ignores unknown members).
class Object {
 public:
  Object(Parser& parser, const JsonValue& value, std::string path);
  ~Object();
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  const JsonValue* optional(const char* key);
  const JsonValue& required(const char* key);
  void ignore(const char* key) { optional(key); }  // known to DxDispatch, no effect here
  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const std::string& path() const { return path_; }
  const JsonValue& value() const { return value_; }

 private:
  Parser& parser_;
  const JsonValue& value_;
  std::string path_;
  std::vector<bool> used_;
};

class Parser {
 public:
  Parser(const JsonDocument& document, const ParseOptions& options) : doc_(document), options_(options) {}

  Model parse();

  [[noreturn]] void fail(const JsonValue& at, const std::string& path, const std::string& message) const {
    throw ModelError(doc_.locate(at), path.empty() ? message : path + ": " + message);
  }
  void warn(size_t offset, const std::string& message) {
    model_.warnings.push_back(doc_.locate(offset).str() + ": " + message);
  }
  Location locate(const JsonValue& v) const { return doc_.locate(v); }

  // Scalars.
  const std::string& string(const JsonValue& v, const std::string& path) const {
    if (v.kind != Kind::String) fail(v, path, std::string("expected a string, got ") + describe(v));
    return v.string;
  }
  uint64_t unsignedInteger(const JsonValue& v, const std::string& path, uint64_t max) const {
    if (v.kind != Kind::Uint || v.unsigned_ > max)
      fail(v, path, "expected an unsigned integer <= " + std::to_string(max) + ", got " + describe(v));
    return v.unsigned_;
  }
  uint32_t uint32(const JsonValue& v, const std::string& path) const {
    return static_cast<uint32_t>(unsignedInteger(v, path, UINT32_MAX));
  }
  int64_t signedInteger(const JsonValue& v, const std::string& path, int64_t min, int64_t max) const {
    bool ok = (v.kind == Kind::Int && v.integer >= min && v.integer <= max) ||
              (v.kind == Kind::Uint && v.unsigned_ <= static_cast<uint64_t>(max));
    if (!ok)
      fail(v, path,
           "expected a signed integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
               describe(v));
    return v.kind == Kind::Int ? v.integer : static_cast<int64_t>(v.unsigned_);
  }
  int32_t int32(const JsonValue& v, const std::string& path) const {
    return static_cast<int32_t>(signedInteger(v, path, INT32_MIN, INT32_MAX));
  }
  // A number (integers only where a double holds them exactly, as
  // RapidJSON's IsLosslessDouble) or "nan", "inf", "-inf" in any case
  // (DxDispatch's ParseFloatingPointNumber).
  double floating(const JsonValue& v, const std::string& path) const {
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
  bool boolean(const JsonValue& v, const std::string& path) const {
    if (v.kind != Kind::Bool) fail(v, path, "expected true or false, got " + describe(v));
    return v.boolean;
  }
  // One element of `type` from a JSON value, as its bits (zero-extended).
  uint64_t elementBits(const JsonValue& v, DML_TENSOR_DATA_TYPE type, const std::string& path) const {
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
        fail(v, path, std::string("no values of data type ") + dataTypeName(type));
    }
  }
  const JsonValue& array(const JsonValue& v, const std::string& path) const {
    if (v.kind != Kind::Array) fail(v, path, std::string("expected an array, got ") + describe(v));
    return v;
  }
  std::vector<uint32_t> uint32Array(const JsonValue& v, const std::string& path) const {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < array(v, path).items.size(); ++i)
      out.push_back(uint32(v.items[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }
  std::vector<int32_t> int32Array(const JsonValue& v, const std::string& path) const {
    std::vector<int32_t> out;
    for (size_t i = 0; i < array(v, path).items.size(); ++i)
      out.push_back(int32(v.items[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }
  DML_TENSOR_DATA_TYPE dataType(const JsonValue& v, const std::string& path) const {
    auto type = dataTypeFromName(string(v, path));
    if (!type)
      fail(v, path,
           "'" + v.string +
               "' is not a recognized value for DML_TENSOR_DATA_TYPE (FLOAT32, FLOAT16, FLOAT64, UINT8..UINT64, "
               "INT8..INT64, with or without the DML_TENSOR_DATA_TYPE_ prefix)");
    return *type;
  }
  // A string or an array of strings naming flags of a table, OR'd.
  uint32_t flags(const JsonValue& v, const std::string& path, const char* prefix,
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

  Model& model() { return model_; }
  const ParseOptions& options() const { return options_; }
  const JsonDocument& document() const { return doc_; }

 private:
  const JsonDocument& doc_;
  const ParseOptions& options_;
  Model model_;
};

Object::Object(Parser& parser, const JsonValue& value, std::string path)
    : parser_(parser), value_(value), path_(std::move(path)) {
  if (value.kind != Kind::Object)
    parser.fail(value, path_, std::string("expected a non-null JSON object, got ") + describe(value));
  used_.assign(value.members.size(), false);
}

Object::~Object() {
  if (std::uncaught_exceptions() > 0) return;  // the parse failed: no warnings wanted
  for (size_t i = 0; i < used_.size(); ++i)
    if (!used_[i])
      parser_.warn(value_.keyOffsets[i],
                   path(value_.members[i].first) + ": unknown field, ignored (as DxDispatch does)");
}

const JsonValue* Object::optional(const char* key) {
  const JsonValue* found = nullptr;
  for (size_t i = 0; i < value_.members.size(); ++i) {
    if (value_.members[i].first != key) continue;
    if (!found) {
      found = &value_.members[i].second;
      used_[i] = true;
    } else {
      used_[i] = true;
      parser_.warn(value_.keyOffsets[i], path(key) + ": duplicate field, ignored (the first one counts)");
    }
  }
  return found;
}

const JsonValue& Object::required(const char* key) {
  if (const JsonValue* v = optional(key)) return *v;
  parser_.fail(value_, path_, std::string("field '") + key + "' is required");
}

// ---------------------------------------------------------------------------
// Resources

uint32_t elementSize(DML_TENSOR_DATA_TYPE type) {
  return DMLElementSizeInBytes(type);
}

void checkResourceBytes(Parser& p, const JsonValue& at, const std::string& path, uint64_t bytes) {
  if (bytes > p.options().maxResourceBytes)
    p.fail(at, path,
           "the resource would hold " + std::to_string(bytes) + " bytes, more than the " +
               std::to_string(p.options().maxResourceBytes) + " a resource may hold");
}

uint64_t elementCountBytes(Parser& p, const JsonValue& at, const std::string& path, uint32_t count,
                           DML_TENSOR_DATA_TYPE type) {
  uint64_t bytes = uint64_t(count) * elementSize(type);
  checkResourceBytes(p, at, path, bytes);
  return bytes;
}

// The contents of a file for sourcePath: inputPath/sourcePath if that
// exists, else sourcePath relative to the current folder (DxDispatch's
// ResolveInputFilePath).
std::vector<uint8_t> readSourceFile(Parser& p, const JsonValue& at, const std::string& path,
                                    const std::string& sourcePath, std::string& resolved) {
  namespace fs = std::filesystem;
  if (!p.options().allowFiles) p.fail(at, path, "files are not read here");
  std::error_code ec;
  fs::path base =
      p.options().inputPath.empty() ? fs::path(p.document().file()).parent_path() : fs::path(p.options().inputPath);
  fs::path candidate = base / sourcePath;
  if (!fs::exists(candidate, ec)) candidate = sourcePath;
  resolved = candidate.string();
  if (!fs::is_regular_file(candidate, ec)) p.fail(at, path, "'" + resolved + "' is not a file");
  uint64_t size = fs::file_size(candidate, ec);
  if (ec) p.fail(at, path, "cannot read '" + resolved + "': " + ec.message());
  checkResourceBytes(p, at, path, size);
  std::vector<uint8_t> bytes(size);
  std::FILE* f = std::fopen(resolved.c_str(), "rb");
  if (!f) p.fail(at, path, "cannot open '" + resolved + "'");
  size_t got = size ? std::fread(bytes.data(), 1, size, f) : 0;
  std::fclose(f);
  if (got != size) p.fail(at, path, "cannot read '" + resolved + "'");
  return bytes;
}

void parseInitialValues(Parser& p, Resource& r, const JsonValue& v, const std::string& path) {
  if (v.kind == Kind::String) {
    if (v.string == "deferred")
      p.fail(v, path, "\"deferred\" resources are ONNX dispatchables' outputs: vkdml-dispatch runs DML operators only");
    p.fail(v, path, "must be an array of numbers, an object, or deferred; got " + describe(v));
  }
  if (v.kind == Kind::Array) {
    BytesInit init;
    if (r.dataType != DML_TENSOR_DATA_TYPE_UNKNOWN) {
      const uint32_t size = elementSize(r.dataType);
      checkResourceBytes(p, v, path, uint64_t(v.items.size()) * size);
      for (size_t i = 0; i < v.items.size(); ++i) {
        uint64_t bits = p.elementBits(v.items[i], r.dataType, path + "[" + std::to_string(i) + "]");
        for (uint32_t b = 0; b < size; ++b) init.bytes.push_back(static_cast<uint8_t>(bits >> (8 * b)));
      }
    } else {
      // A mixed list: {"type": ..., "value": ...} per element, packed.
      for (size_t i = 0; i < v.items.size(); ++i) {
        std::string itemPath = path + "[" + std::to_string(i) + "]";
        Object item(p, v.items[i], itemPath);
        item.ignore("name");
        DML_TENSOR_DATA_TYPE type = p.dataType(item.required("type"), item.path("type"));
        if (type == DML_TENSOR_DATA_TYPE_FLOAT16 || type == DML_TENSOR_DATA_TYPE_UNKNOWN)
          p.fail(item.required("type"), item.path("type"),
                 std::string(dataTypeName(type)) + " is not supported in a list of typed values (as in DxDispatch)");
        uint64_t bits = p.elementBits(item.required("value"), type, item.path("value"));
        for (uint32_t b = 0; b < elementSize(type); ++b) init.bytes.push_back(static_cast<uint8_t>(bits >> (8 * b)));
      }
    }
    r.initialBytes = init.bytes.size();
    r.init = std::move(init);
  } else if (v.kind == Kind::Object) {
    Object o(p, v, path);
    const JsonValue* value = o.optional("value");
    const JsonValue* start = o.optional("valueStart");
    const JsonValue* source = o.optional("sourcePath");
    if (int(value != nullptr) + int(start != nullptr) + int(source != nullptr) > 1)
      p.fail(v, path, "'value', 'valueStart' and 'sourcePath' are mutually exclusive");
    if (value || start) {
      if (r.dataType == DML_TENSOR_DATA_TYPE_UNKNOWN)
        p.fail(v, path, "a constant or a sequence needs initialValuesDataType");
      const JsonValue& count = o.required("valueCount");
      uint32_t n = p.uint32(count, o.path("valueCount"));
      r.initialBytes = elementCountBytes(p, count, o.path("valueCount"), n, r.dataType);
      if (value) {
        r.init = ConstantInit{p.elementBits(*value, r.dataType, o.path("value")), n};
      } else {
        SequenceInit s;
        s.count = n;
        s.start = p.elementBits(*start, r.dataType, o.path("valueStart"));
        s.delta = p.elementBits(o.required("valueDelta"), r.dataType, o.path("valueDelta"));
        r.init = s;
      }
    } else if (source) {
      const std::string sourcePath = p.string(*source, o.path("sourcePath"));
      std::string resolved;
      std::vector<uint8_t> bytes = readSourceFile(p, *source, o.path("sourcePath"), sourcePath, resolved);
      std::string extension = lower(std::filesystem::path(resolved).extension().string());
      if (extension == ".npy") {
        NpyArray array;
        try {
          array = readNpy(bytes);
        } catch (const std::exception& e) {
          p.fail(*source, o.path("sourcePath"), "'" + resolved + "': " + e.what());
        }
        if (r.dataType != DML_TENSOR_DATA_TYPE_UNKNOWN && r.dataType != array.dataType)
          p.fail(*source, o.path("sourcePath"),
                 "data type from file '" + resolved + "' (" + dataTypeName(array.dataType) +
                     ") does not match field 'initialValuesDataType' (" + dataTypeName(r.dataType) + ")");
        r.dataType = array.dataType;
        bytes = std::move(array.data);
      } else if (extension == ".jpg" || extension == ".png") {
        p.fail(*source, o.path("sourcePath"), "image files are not supported by vkdml-dispatch");
      }
      r.initialBytes = bytes.size();
      r.init = BytesInit{std::move(bytes)};
    } else {
      p.fail(v, path, "unknown generator type: expected 'value', 'valueStart' or 'sourcePath'");
    }
  } else {
    p.fail(v, path, "must be an array of numbers, an object, or deferred; got " + describe(v));
  }
  if (r.initialBytes == 0) p.fail(v, path, "'initialValues' must be non-empty");
}

Resource parseResource(Parser& p, const std::string& name, const JsonValue& v, const std::string& path) {
  Object o(p, v, path);
  Resource r;
  r.name = name;
  r.where = p.locate(v);
  o.ignore("type");  // "buffer", the only kind; DxDispatch never reads it
  if (const JsonValue* t = o.optional("initialValuesDataType")) {
    r.dataType = p.dataType(*t, o.path("initialValuesDataType"));
  }
  parseInitialValues(p, r, o.required("initialValues"), o.path("initialValues"));
  uint64_t offset = 0;
  // Validated as in DxDispatch, which then copies the values to offset 0 all
  // the same (it never uses the offset); so does vkdml-dispatch.
  if (const JsonValue* off = o.optional("initialValuesOffsetInBytes"))
    offset = p.unsignedInteger(*off, o.path("initialValuesOffsetInBytes"), UINT64_MAX);
  if (const JsonValue* size = o.optional("sizeInBytes")) {
    r.sizeInBytes = p.unsignedInteger(*size, o.path("sizeInBytes"), UINT64_MAX);
    checkResourceBytes(p, *size, o.path("sizeInBytes"), r.sizeInBytes);
  } else {
    r.sizeInBytes = (r.initialBytes + 3) & ~uint64_t(3);
  }
  if (offset > r.sizeInBytes || r.initialBytes > r.sizeInBytes - offset)
    p.fail(v, path,
           "the buffer size (" + std::to_string(r.sizeInBytes) + " bytes) is too small for the initialValues (" +
               std::to_string(r.initialBytes) + " bytes) at offset " + std::to_string(offset) + " bytes");
  for (const char* image : {"resampleSize", "resampleMode"})
    if (const JsonValue* x = o.optional(image)) p.fail(*x, o.path(image), "image resources are not supported");
  return r;
}

// ---------------------------------------------------------------------------
// Dispatchables

class DescReader {
 public:
  DescReader(Parser& p, Object& o, Dispatchable& d) : p_(p), o_(o), d_(d) {}

  const JsonValue& required(const char* field) { return at(field, o_.required(field)); }
  const JsonValue* optional(const char* field) {
    const JsonValue* v = o_.optional(field);
    return v ? &at(field, *v) : nullptr;
  }
  uint32_t uint32(const char* field) { return p_.uint32(required(field), o_.path(field)); }
  int32_t int32(const char* field) { return p_.int32(required(field), o_.path(field)); }
  double floating(const char* field) { return p_.floating(required(field), o_.path(field)); }
  std::vector<uint32_t> uints(const char* field) { return p_.uint32Array(required(field), o_.path(field)); }
  std::vector<int32_t> ints(const char* field) { return p_.int32Array(required(field), o_.path(field)); }

  TensorDesc tensor(const char* field) { return tensorAt(required(field), field); }
  std::optional<TensorDesc> optionalTensor(const char* field) {
    const JsonValue* v = optional(field);
    if (!v) return std::nullopt;
    return tensorAt(*v, field);
  }
  std::vector<TensorDesc> tensors(const char* field) {
    const JsonValue& v = p_.array(required(field), o_.path(field));
    std::vector<TensorDesc> out;
    for (size_t i = 0; i < v.items.size(); ++i)
      out.push_back(tensorAt(v.items[i], std::string(field) + "[" + std::to_string(i) + "]"));
    return out;
  }
  DML_TENSOR_DATA_TYPE dataType(const char* field) { return p_.dataType(required(field), o_.path(field)); }

  // A DML_SCALAR_UNION from a number (the type's scalar parser) or an object
  // naming the union member ({"Float32": 1.5}, FLOAT16 as {"UInt16": bits}).
  DML_SCALAR_UNION scalarUnion(const char* field, DML_TENSOR_DATA_TYPE type) {
    const JsonValue& v = required(field);
    std::string path = o_.path(field);
    DML_SCALAR_UNION u{};
    if (type == DML_TENSOR_DATA_TYPE_UNKNOWN) p_.fail(v, path, "data type not supported for DML_SCALAR_UNION");
    if (v.isNumber()) {
      u.UInt64 = p_.elementBits(v, type, path);
      return u;
    }
    if (v.kind != Kind::Object) p_.fail(v, path, "expected a non-null JSON object or number, got " + describe(v));
    static const std::pair<DML_TENSOR_DATA_TYPE, const char*> kMembers[] = {
        {DML_TENSOR_DATA_TYPE_FLOAT32, "Float32"}, {DML_TENSOR_DATA_TYPE_FLOAT64, "Float64"},
        {DML_TENSOR_DATA_TYPE_FLOAT16, "UInt16"},  {DML_TENSOR_DATA_TYPE_UINT8, "UInt8"},
        {DML_TENSOR_DATA_TYPE_UINT16, "UInt16"},   {DML_TENSOR_DATA_TYPE_UINT32, "UInt32"},
        {DML_TENSOR_DATA_TYPE_UINT64, "UInt64"},   {DML_TENSOR_DATA_TYPE_INT8, "Int8"},
        {DML_TENSOR_DATA_TYPE_INT16, "Int16"},     {DML_TENSOR_DATA_TYPE_INT32, "Int32"},
        {DML_TENSOR_DATA_TYPE_INT64, "Int64"}};
    for (const auto& m : kMembers) {
      if (m.first != type) continue;
      Object o(p_, v, path);
      // FLOAT16 is given as its bits.
      DML_TENSOR_DATA_TYPE memberType = type == DML_TENSOR_DATA_TYPE_FLOAT16 ? DML_TENSOR_DATA_TYPE_UINT16 : type;
      u.UInt64 = p_.elementBits(o.required(m.second), memberType, o.path(m.second));
      return u;
    }
    p_.fail(v, path, "data type not supported for DML_SCALAR_UNION");
  }

 private:
  const JsonValue& at(const std::string& field, const JsonValue& v) {
    d_.fields.emplace(field, p_.locate(v));
    return v;
  }

  TensorDesc tensorAt(const JsonValue& v, const std::string& field) {
    at(field, v);
    std::string path = o_.path(field);
    Object outer(p_, v, path);
    if (const JsonValue* type = outer.optional("Type")) {
      std::string name = withoutPrefix(p_.string(*type, outer.path("Type")), "DML_TENSOR_TYPE_");
      if (name != "BUFFER")
        p_.fail(*type, outer.path("Type"),
                "'" + type->string + "': only DML_TENSOR_TYPE_BUFFER tensors exist in vkdml");
    }
    const JsonValue* inner = outer.optional("Desc");
    std::optional<Object> desc;
    if (inner) desc.emplace(p_, *inner, outer.path("Desc"));
    Object& o = inner ? *desc : outer;
    TensorDesc t;
    t.field = field;
    t.dataType = p_.dataType(o.required("DataType"), o.path("DataType"));
    if (t.dataType == DML_TENSOR_DATA_TYPE_UNKNOWN)
      p_.fail(o.required("DataType"), o.path("DataType"), "a tensor needs a data type other than UNKNOWN");
    if (const JsonValue* flags = o.optional("Flags"))
      t.flags = p_.flags(*flags, o.path("Flags"), "DML_TENSOR_FLAG_", {{"NONE", 0}, {"OWNED_BY_DML", 1}});
    const JsonValue& sizes = o.required("Sizes");
    t.sizes = p_.uint32Array(sizes, o.path("Sizes"));
    d_.fields.emplace(field + ".Sizes", p_.locate(sizes));
    if (const JsonValue* dc = o.optional("DimensionCount")) {
      t.dimensionCount = p_.uint32(*dc, o.path("DimensionCount"));
      if (*t.dimensionCount != t.sizes.size())
        p_.fail(
            *dc, o.path("DimensionCount"),
            "is " + std::to_string(*t.dimensionCount) + " but Sizes has " + std::to_string(t.sizes.size()) + " values");
    }
    if (const JsonValue* strides = o.optional("Strides")) {
      t.strides = p_.uint32Array(*strides, o.path("Strides"));
      d_.fields.emplace(field + ".Strides", p_.locate(*strides));
      if (!t.strides.empty() && t.strides.size() != t.sizes.size())
        p_.fail(*strides, o.path("Strides"),
                "has " + std::to_string(t.strides.size()) + " values but Sizes has " + std::to_string(t.sizes.size()));
    }
    if (const JsonValue* total = o.optional("TotalTensorSizeInBytes"))
      t.totalTensorSizeInBytes = p_.unsignedInteger(*total, o.path("TotalTensorSizeInBytes"), UINT64_MAX);
    if (const JsonValue* align = o.optional("GuaranteedBaseOffsetAlignment"))
      t.guaranteedBaseOffsetAlignment = p_.uint32(*align, o.path("GuaranteedBaseOffsetAlignment"));
    return t;
  }

  Parser& p_;
  Object& o_;
  Dispatchable& d_;
};

// One parser per operator, fields in DxDispatch's order.
OperatorDesc parseOperator(const std::string& op, DescReader& r) {
  if (op == "SLICE") {
    SliceDesc d;
    d.input = r.tensor("InputTensor");
    d.output = r.tensor("OutputTensor");
    d.dimensionCount = r.uint32("DimensionCount");
    d.offsets = r.uints("Offsets");
    d.sizes = r.uints("Sizes");
    d.strides = r.uints("Strides");
    return d;
  }
  if (op == "SLICE1") {
    Slice1Desc d;
    d.input = r.tensor("InputTensor");
    d.output = r.tensor("OutputTensor");
    d.dimensionCount = r.uint32("DimensionCount");
    d.offsets = r.uints("InputWindowOffsets");
    d.sizes = r.uints("InputWindowSizes");
    d.strides = r.ints("InputWindowStrides");
    return d;
  }
  if (op == "JOIN") {
    JoinDesc d;
    d.inputCount = r.uint32("InputCount");
    d.inputs = r.tensors("InputTensors");
    d.output = r.tensor("OutputTensor");
    d.axis = r.uint32("Axis");
    return d;
  }
  if (op == "SCATTER_ND") {
    ScatterNdDesc d;
    d.input = r.tensor("InputTensor");
    d.indices = r.tensor("IndicesTensor");
    d.updates = r.tensor("UpdatesTensor");
    d.output = r.tensor("OutputTensor");
    d.inputDimensionCount = r.uint32("InputDimensionCount");
    d.indicesDimensionCount = r.uint32("IndicesDimensionCount");
    return d;
  }
  if (op == "DIAGONAL_MATRIX") {
    DiagonalMatrixDesc d;
    d.output = r.tensor("OutputTensor");
    d.offset = r.int32("Offset");
    d.value = static_cast<float>(r.floating("Value"));
    return d;
  }
  if (op == "DIAGONAL_MATRIX1") {
    DiagonalMatrix1Desc d;
    d.input = r.optionalTensor("InputTensor");
    d.output = r.tensor("OutputTensor");
    d.valueDataType = r.dataType("ValueDataType");
    d.value = r.scalarUnion("Value", d.valueDataType);
    d.diagonalFillBegin = r.int32("DiagonalFillBegin");
    d.diagonalFillEnd = r.int32("DiagonalFillEnd");
    return d;
  }
  // CONVOLUTION_INTEGER
  ConvolutionIntegerDesc d;
  d.input = r.tensor("InputTensor");
  d.inputZeroPoint = r.optionalTensor("InputZeroPointTensor");
  d.filter = r.tensor("FilterTensor");
  d.filterZeroPoint = r.optionalTensor("FilterZeroPointTensor");
  d.output = r.tensor("OutputTensor");
  d.dimensionCount = r.uint32("DimensionCount");
  d.strides = r.uints("Strides");
  d.dilations = r.uints("Dilations");
  d.startPadding = r.uints("StartPadding");
  d.endPadding = r.uints("EndPadding");
  d.groupCount = r.uint32("GroupCount");
  return d;
}

constexpr const char* kOperators[] = {
    "SLICE", "SLICE1", "JOIN", "SCATTER_ND", "DIAGONAL_MATRIX", "DIAGONAL_MATRIX1", "CONVOLUTION_INTEGER"};

std::vector<BindPoint> parseBindings(Parser& p, const JsonValue& v, const std::string& path);

Dispatchable parseDispatchable(Parser& p, const std::string& name, const JsonValue& v, const std::string& path) {
  Object o(p, v, path);
  Dispatchable d;
  d.name = name;
  d.where = p.locate(v);
  const JsonValue& type = o.required("type");
  std::string kind = lower(p.string(type, o.path("type")));
  if (kind == "hlsl" || kind == "onnx" || kind == "dmlserializedgraph")
    p.fail(type, o.path("type"),
           "'" + type.string + "' dispatchables are not supported: vkdml-dispatch runs DirectML operators only");
  // As DxDispatch's ParseDmlOperatorDesc: "Type" names the operator where
  // present, and the fields are in "Desc", "desc", or the object itself.
  const JsonValue* opType = o.optional("Type");
  const JsonValue& opValue = opType ? *opType : type;
  std::string opPath = o.path(opType ? "Type" : "type");
  d.typeName = p.string(opValue, opPath);
  std::string op = withoutPrefix(d.typeName, "DML_OPERATOR_");
  if (std::find(std::begin(kOperators), std::end(kOperators), op) == std::end(kOperators)) {
    std::string known;
    for (const char* k : kOperators) known += (known.empty() ? "DML_OPERATOR_" : ", DML_OPERATOR_") + std::string(k);
    p.fail(opValue, opPath, "unknown operator '" + d.typeName + "' (vkdml-dispatch runs " + known + ")");
  }
  if (const JsonValue* flags = o.optional("executionFlags"))
    p.flags(*flags, o.path("executionFlags"), "DML_EXECUTION_FLAG_",
            {{"NONE", 0},
             {"ALLOW_HALF_PRECISION_COMPUTATION", 1},
             {"DISABLE_META_COMMANDS", 2},
             {"DESCRIPTORS_VOLATILE", 4}});
  if (const JsonValue* compile = o.optional("dmlCompileType")) {
    std::string c = p.string(*compile, o.path("dmlCompileType"));
    if (c != "DmlCompileOp" && c != "DmlCompileGraph")
      p.fail(*compile, o.path("dmlCompileType"), "'" + c + "' is neither DmlCompileOp nor DmlCompileGraph");
    d.compileGraph = c == "DmlCompileGraph";
  }
  if (const JsonValue* bindings = o.optional("bindings"))
    d.initBindings = parseBindings(p, *bindings, o.path("bindings"));
  const JsonValue* descValue = o.optional("Desc");
  std::string descKey = "Desc";
  if (!descValue) {
    descValue = o.optional("desc");
    descKey = "desc";
  }
  if (descValue) {
    Object desc(p, *descValue, o.path(descKey));
    DescReader reader(p, desc, d);
    d.desc = parseOperator(op, reader);
  } else {
    DescReader reader(p, o, d);
    d.desc = parseOperator(op, reader);
  }
  d.fields.emplace("", descValue ? p.locate(*descValue) : d.where);
  return d;
}

// ---------------------------------------------------------------------------
// Bindings and commands

BindingSource parseSource(Parser& p, const JsonValue& v, const std::string& path) {
  BindingSource s;
  s.where = p.locate(v);
  if (v.kind == Kind::String) {
    s.resource = v.string;
    return s;
  }
  if (v.kind != Kind::Object) p.fail(v, path, "expected a resource name or an object with 'name', got " + describe(v));
  Object o(p, v, path);
  s.resource = p.string(o.required("name"), o.path("name"));
  if (const JsonValue* x = o.optional("elementOffset"))
    s.elementOffset = p.unsignedInteger(*x, o.path("elementOffset"), UINT64_MAX);
  if (const JsonValue* x = o.optional("elementCount"))
    s.elementCount = p.unsignedInteger(*x, o.path("elementCount"), UINT64_MAX);
  if (const JsonValue* x = o.optional("elementSizeInBytes"))
    s.elementSizeInBytes = p.unsignedInteger(*x, o.path("elementSizeInBytes"), UINT64_MAX);
  for (const char* hlslOrOnnx : {"format", "counter", "counterOffsetBytes", "shape"}) o.ignore(hlslOrOnnx);
  return s;
}

std::vector<BindPoint> parseBindings(Parser& p, const JsonValue& v, const std::string& path) {
  Object o(p, v, path);
  std::vector<BindPoint> out;
  for (size_t i = 0; i < v.members.size(); ++i) {
    const std::string& name = v.members[i].first;
    const JsonValue& value = *o.optional(name.c_str());
    if (&value != &v.members[i].second) continue;  // a duplicate: warned, the first counts
    BindPoint b;
    b.name = name;
    b.where = p.locate(value);
    std::string bindPath = o.path(name);
    if (value.kind == Kind::Array) {
      for (size_t j = 0; j < value.items.size(); ++j)
        b.sources.push_back(parseSource(p, value.items[j], bindPath + "[" + std::to_string(j) + "]"));
    } else {
      b.sources.push_back(parseSource(p, value, bindPath));
    }
    out.push_back(std::move(b));
  }
  return out;
}

Command parseCommand(Parser& p, const JsonValue& v, const std::string& path) {
  Object o(p, v, path);
  Command c;
  c.where = p.locate(v);
  const JsonValue& typeValue = o.required("type");
  std::string type = lower(p.string(typeValue, o.path("type")));
  if (type == "dispatch") {
    DispatchCommand d;
    d.dispatchable = p.string(o.required("dispatchable"), o.path("dispatchable"));
    const JsonValue& bindings = o.required("bindings");
    if (bindings.kind != Kind::Object)
      p.fail(bindings, o.path("bindings"), "expected an object field named 'bindings', got " + describe(bindings));
    d.bindings = parseBindings(p, bindings, o.path("bindings"));
    if (const JsonValue* groups = o.optional("threadGroupCount"))
      if (groups->kind != Kind::Array || groups->items.size() != 3)
        p.fail(*groups, o.path("threadGroupCount"), "expected an array of 3 numbers");
    c.command = std::move(d);
  } else if (type == "print") {
    PrintCommand print;
    print.resource = p.string(o.required("resource"), o.path("resource"));
    if (const JsonValue* verbose = o.optional("verbose")) print.verbose = p.boolean(*verbose, o.path("verbose"));
    c.command = std::move(print);
  } else if (type == "writefile") {
    WriteFileCommand w;
    w.resource = p.string(o.required("resource"), o.path("resource"));
    w.targetPath = p.string(o.required("targetPath"), o.path("targetPath"));
    if (const JsonValue* dims = o.optional("dimensions")) w.dimensions = p.uint32Array(*dims, o.path("dimensions"));
    c.command = std::move(w);
  } else {
    p.fail(typeValue, o.path("type"), "unrecognized command '" + typeValue.string + "' (dispatch, print, writeFile)");
  }
  return c;
}

// Every name a command or dispatchable uses must exist (DxDispatch's Model
// constructor), and bindings must fit the operator's bind points.
void checkNames(Parser& p, const Model& m) {
  auto known = [&]() {
    std::string names;
    for (const auto& r : m.resources) names += (names.empty() ? "" : ", ") + r.name;
    return names;
  };
  auto checkResource = [&](const std::string& name, const Location& where, const std::string& what) {
    if (!m.findResource(name))
      throw ModelError(where, what + ": unknown resource '" + name + "' (the model's resources: " + known() + ")");
  };
  auto checkBindings = [&](const Dispatchable& d, const std::vector<BindPoint>& bindings, const std::string& path) {
    auto points = bindPoints(d.desc);
    for (const auto& b : bindings) {
      for (size_t i = 0; i < b.sources.size(); ++i)
        checkResource(b.sources[i].resource, b.sources[i].where,
                      path + "." + b.name + (b.sources.size() > 1 ? "[" + std::to_string(i) + "]" : ""));
      auto point =
          std::find_if(points.begin(), points.end(), [&](const BindPointInfo& info) { return b.name == info.name; });
      if (point == points.end()) {
        std::string names;
        for (const auto& info : points) names += (names.empty() ? "" : ", ") + std::string(info.name);
        p.model().warnings.push_back(b.where.str() + ": " + path + "." + b.name + ": " + operatorName(d.desc) +
                                     " has no bind point '" + b.name + "' (it has " + names +
                                     "); ignored (as DxDispatch does)");
      } else if (point->resourceCount != b.sources.size()) {
        throw ModelError(b.where, path + "." + b.name + ": bind point '" + b.name + "' requires " +
                                      std::to_string(point->resourceCount) + " resources, but " +
                                      std::to_string(b.sources.size()) + " were bound");
      }
    }
  };
  for (const auto& d : m.dispatchables) checkBindings(d, d.initBindings, "dispatchables." + d.name + ".bindings");
  for (size_t i = 0; i < m.commands.size(); ++i) {
    const Command& c = m.commands[i];
    std::string path = "commands[" + std::to_string(i) + "]";
    if (const auto* d = std::get_if<DispatchCommand>(&c.command)) {
      const Dispatchable* target = m.findDispatchable(d->dispatchable);
      if (!target) {
        std::string names;
        for (const auto& x : m.dispatchables) names += (names.empty() ? "" : ", ") + x.name;
        throw ModelError(c.where, path + ".dispatchable: unknown dispatchable '" + d->dispatchable +
                                      "' (the model's dispatchables: " + names + ")");
      }
      checkBindings(*target, d->bindings, path + ".bindings");
    } else if (const auto* print = std::get_if<PrintCommand>(&c.command)) {
      checkResource(print->resource, c.where, path + ".resource");
    } else if (const auto* write = std::get_if<WriteFileCommand>(&c.command)) {
      checkResource(write->resource, c.where, path + ".resource");
    }
  }
}

Model Parser::parse() {
  Object root(*this, doc_.root(), "");
  root.ignore("$schema");
  const JsonValue* resources = root.optional("resources");
  if (!resources || resources->kind != Kind::Object)
    fail(resources ? *resources : doc_.root(), "", "expected an object named 'resources'");
  const JsonValue* dispatchables = root.optional("dispatchables");
  if (!dispatchables || dispatchables->kind != Kind::Object)
    fail(dispatchables ? *dispatchables : doc_.root(), "", "expected an object named 'dispatchables'");
  const JsonValue* commands = root.optional("commands");
  if (!commands || commands->kind != Kind::Array)
    fail(commands ? *commands : doc_.root(), "", "expected an array field named 'commands'");

  for (size_t i = 0; i < resources->members.size(); ++i) {
    const auto& [name, value] = resources->members[i];
    if (model_.findResource(name))
      throw ModelError(doc_.locate(resources->keyOffsets[i]), "resources." + name + ": a second resource of that name");
    model_.resources.push_back(parseResource(*this, name, value, "resources." + name));
  }
  for (size_t i = 0; i < dispatchables->members.size(); ++i) {
    const auto& [name, value] = dispatchables->members[i];
    if (model_.findDispatchable(name))
      throw ModelError(doc_.locate(dispatchables->keyOffsets[i]),
                       "dispatchables." + name + ": a second dispatchable of that name");
    model_.dispatchables.push_back(parseDispatchable(*this, name, value, "dispatchables." + name));
  }
  for (size_t i = 0; i < commands->items.size(); ++i)
    model_.commands.push_back(parseCommand(*this, commands->items[i], "commands[" + std::to_string(i) + "]"));
  checkNames(*this, model_);
  return std::move(model_);
}

}  // namespace

Model parseModel(const JsonDocument& document, const ParseOptions& options) {
  Parser parser(document, options);
  return parser.parse();
}

Model parseModelFile(const std::string& path, const ParseOptions& options) {
  std::string extension = lower(std::filesystem::path(path).extension().string());
  if (extension != ".json")
    throw ModelError({path}, extension == ".onnx"
                                 ? "ONNX models are not supported: vkdml-dispatch runs DirectML operators only"
                                 : "expected a .json file");
  return parseModel(JsonDocument::parseFile(path), options);
}

}  // namespace dispatch
