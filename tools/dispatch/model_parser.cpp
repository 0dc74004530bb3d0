#include "model_parser.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "data_types.hpp"
#include "descriptors.hpp"
#include "field_reader.hpp"
#include "npy.hpp"
#include "operator_parser.hpp"

namespace dispatch {

namespace {

using Kind = JsonValue::Kind;

// ---------------------------------------------------------------------------
// Resources

uint32_t elementSize(DML_TENSOR_DATA_TYPE type) {
  return vkdmlElementSizeInBytes(type);
}

// A resource's bytes against the limits, its own and the model's (with the
// resources before it), before anything of that size is read or built.
void checkResourceBytes(FieldReader& p, const JsonValue& at, const std::string& path, uint64_t bytes) {
  const ParseOptions& o = p.options();
  if (bytes > o.maxResourceBytes)
    p.fail(at, path,
           "the resource would hold " + std::to_string(bytes) + " bytes, more than the " +
               std::to_string(o.maxResourceBytes) + " a resource may hold");
  if (p.resourceBytes > o.maxModelBytes || bytes > o.maxModelBytes - p.resourceBytes)
    p.fail(at, path,
           "the model's resources would hold " + std::to_string(p.resourceBytes + bytes) + " bytes, more than the " +
               std::to_string(o.maxModelBytes) + " they may hold together");
}

uint64_t elementCountBytes(FieldReader& p, const JsonValue& at, const std::string& path, uint32_t count,
                           DML_TENSOR_DATA_TYPE type) {
  uint64_t bytes = uint64_t(count) * elementSize(type);
  checkResourceBytes(p, at, path, bytes);
  return bytes;
}

// The contents of a file for sourcePath: inputPath/sourcePath if that
// exists, else sourcePath relative to the current folder (DxDispatch's
// ResolveInputFilePath).
std::vector<uint8_t> readSourceFile(FieldReader& p, const JsonValue& at, const std::string& path,
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
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    p.fail(at, path, "out of memory for the " + std::to_string(size) + " bytes of '" + resolved + "'");
  }
  std::FILE* f = std::fopen(resolved.c_str(), "rb");
  if (!f) p.fail(at, path, "cannot open '" + resolved + "'");
  size_t got = size ? std::fread(bytes.data(), 1, size, f) : 0;
  std::fclose(f);
  if (got != size) p.fail(at, path, "cannot read '" + resolved + "'");
  return bytes;
}

void parseInitialValues(FieldReader& p, Resource& r, const JsonValue& v, const std::string& path) {
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
                 std::string(vkdml::toString(type)) + " is not supported in a list of typed values (as in DxDispatch)");
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
      const std::string sourcePath = p.fileName(*source, o.path("sourcePath"));
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
                 "data type from file '" + resolved + "' (" + vkdml::toString(array.dataType) +
                     ") does not match field 'initialValuesDataType' (" + vkdml::toString(r.dataType) + ")");
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

Resource parseResource(FieldReader& p, const std::string& name, const JsonValue& v, const std::string& path) {
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
    checkResourceBytes(p, v, path, r.sizeInBytes);  // 2^32 - 1 bytes of values make 4 GiB
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

std::vector<BindPoint> parseBindings(FieldReader& p, const JsonValue& v, const std::string& path);

Dispatchable parseDispatchable(FieldReader& p, const std::string& name, const JsonValue& v, const std::string& path) {
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
  if (!isKnownOperator(op))
    p.fail(opValue, opPath, "unknown operator '" + d.typeName + "' (vkdml-dispatch runs " + knownOperators() + ")");
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
    parseOperatorFields(p, desc, d, op);
  } else {
    parseOperatorFields(p, o, d, op);
  }
  d.fields.emplace("", descValue ? p.locate(*descValue) : d.where);
  return d;
}

// ---------------------------------------------------------------------------
// Bindings and commands

BindingSource parseSource(FieldReader& p, const JsonValue& v, const std::string& path) {
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

std::vector<BindPoint> parseBindings(FieldReader& p, const JsonValue& v, const std::string& path) {
  Object o(p, v, path);
  std::vector<BindPoint> out;
  for (size_t i = 0; i < v.members.size(); ++i) {
    const std::string& name = v.members[i].first;
    const JsonValue& value = *o.optional(name);
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

Command parseCommand(FieldReader& p, const JsonValue& v, const std::string& path) {
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
    w.targetPath = p.fileName(o.required("targetPath"), o.path("targetPath"));
    if (const JsonValue* dims = o.optional("dimensions")) w.dimensions = p.uint32Array(*dims, o.path("dimensions"));
    c.command = std::move(w);
  } else {
    p.fail(typeValue, o.path("type"), "unrecognized command '" + typeValue.string + "' (dispatch, print, writeFile)");
  }
  return c;
}

// Every name a command or dispatchable uses must exist (DxDispatch's Model
// constructor), and bindings must fit the operator's bind points.
void checkNames(FieldReader& p, const Model& m) {
  std::unordered_map<std::string_view, const Resource*> resources;
  for (const auto& r : m.resources) resources.emplace(r.name, &r);
  std::unordered_map<std::string_view, const Dispatchable*> dispatchables;
  for (const auto& d : m.dispatchables) dispatchables.emplace(d.name, &d);
  auto known = [&]() {
    std::string names;
    for (const auto& r : m.resources) names += (names.empty() ? "" : ", ") + r.name;
    return names;
  };
  auto checkResource = [&](const std::string& name, const Location& where, const std::string& what) {
    auto it = resources.find(name);
    if (it == resources.end())
      throw ModelError(where, what + ": unknown resource '" + name + "' (the model's resources: " + known() + ")");
    return it->second;
  };
  auto checkBindings = [&](const Dispatchable& d, const std::vector<BindPoint>& bindings, const std::string& path) {
    auto points = bindPoints(d.desc);
    for (const auto& b : bindings) {
      for (size_t i = 0; i < b.sources.size(); ++i) {
        const BindingSource& source = b.sources[i];
        const std::string sourcePath =
            path + "." + b.name + (b.sources.size() > 1 ? "[" + std::to_string(i) + "]" : "");
        const Resource* r = checkResource(source.resource, source.where, sourcePath);
        // An offset in elements needs an element size: the resource's data
        // type, else elementSizeInBytes (DxDispatch ignores the offset).
        if (source.elementOffset && !source.elementSizeInBytes && elementSize(r->dataType) == 0)
          throw ModelError(source.where, sourcePath + ".elementOffset: resource '" + r->name +
                                             "' has no data type (no initialValuesDataType) to count " +
                                             std::to_string(source.elementOffset) +
                                             " elements in; give elementSizeInBytes");
      }
      auto point =
          std::find_if(points.begin(), points.end(), [&](const BindPointInfo& info) { return b.name == info.name; });
      if (point == points.end()) {
        std::string names;
        for (const auto& info : points) names += (names.empty() ? "" : ", ") + std::string(info.name);
        p.warnings.push_back(b.where.str() + ": " + path + "." + b.name + ": " + operatorName(d.desc) +
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
      auto found = dispatchables.find(d->dispatchable);
      if (found == dispatchables.end()) {
        std::string names;
        for (const auto& x : m.dispatchables) names += (names.empty() ? "" : ", ") + x.name;
        throw ModelError(c.where, path + ".dispatchable: unknown dispatchable '" + d->dispatchable +
                                      "' (the model's dispatchables: " + names + ")");
      }
      checkBindings(*found->second, d->bindings, path + ".bindings");
    } else if (const auto* print = std::get_if<PrintCommand>(&c.command)) {
      checkResource(print->resource, c.where, path + ".resource");
    } else if (const auto* write = std::get_if<WriteFileCommand>(&c.command)) {
      checkResource(write->resource, c.where, path + ".resource");
    }
  }
}

// The root object is read in a scope of its own: its unknown fields are
// warned about when it goes, before the warnings move into the model.
Model parse(FieldReader& p, const JsonDocument& doc) {
  Model model;
  {
    Object root(p, doc.root(), "");
    root.ignore("$schema");
    const JsonValue* resources = root.optional("resources");
    if (!resources || resources->kind != Kind::Object)
      p.fail(resources ? *resources : doc.root(), "", "expected an object named 'resources'");
    const JsonValue* dispatchables = root.optional("dispatchables");
    if (!dispatchables || dispatchables->kind != Kind::Object)
      p.fail(dispatchables ? *dispatchables : doc.root(), "", "expected an object named 'dispatchables'");
    const JsonValue* commands = root.optional("commands");
    if (!commands || commands->kind != Kind::Array)
      p.fail(commands ? *commands : doc.root(), "", "expected an array field named 'commands'");

    // Each member by name, a second of the same name refused (each lookup in
    // constant time: a model may hold many).
    auto eachOnce = [&](const JsonValue& object, const std::string& section, const char* what, const auto& parse) {
      std::unordered_set<std::string_view> names;
      for (size_t i = 0; i < object.members.size(); ++i) {
        const auto& [name, value] = object.members[i];
        if (!names.insert(name).second)
          throw ModelError(doc.locate(object.keyOffsets[i]),
                           section + "." + name + ": a second " + what + " of that name");
        parse(name, value, section + "." + name);
      }
    };
    eachOnce(*resources, "resources", "resource",
             [&](const std::string& name, const JsonValue& value, const std::string& where) {
               model.resources.push_back(parseResource(p, name, value, where));
               p.resourceBytes += model.resources.back().sizeInBytes;
             });
    eachOnce(*dispatchables, "dispatchables", "dispatchable",
             [&](const std::string& name, const JsonValue& value, const std::string& where) {
               model.dispatchables.push_back(parseDispatchable(p, name, value, where));
             });
    for (size_t i = 0; i < commands->items.size(); ++i)
      model.commands.push_back(parseCommand(p, commands->items[i], "commands[" + std::to_string(i) + "]"));
    checkNames(p, model);
  }
  model.warnings = std::move(p.warnings);
  return model;
}

}  // namespace

Model parseModel(const JsonDocument& document, const ParseOptions& options) {
  FieldReader reader(document, options);
  return parse(reader, document);
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
