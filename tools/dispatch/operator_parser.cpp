#include "operator_parser.hpp"

#include <algorithm>
#include <iterator>
#include <optional>

#include "data_types.hpp"

namespace dispatch {

namespace {

using Kind = JsonValue::Kind;

class DescReader {
 public:
  DescReader(FieldReader& p, Object& o, Dispatchable& d) : p_(p), o_(o), d_(d) {}

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

  FieldReader& p_;
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
    d.value = r.floating("Value");  // a double until the output's type checks it
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

}  // namespace

bool isKnownOperator(const std::string& op) {
  return std::find(std::begin(kOperators), std::end(kOperators), op) != std::end(kOperators);
}

std::string knownOperators() {
  std::string known;
  for (const char* k : kOperators) known += (known.empty() ? "DML_OPERATOR_" : ", DML_OPERATOR_") + std::string(k);
  return known;
}

void parseOperatorFields(FieldReader& reader, Object& desc, Dispatchable& d, const std::string& op) {
  DescReader r(reader, desc, d);
  d.desc = parseOperator(op, r);
}

}  // namespace dispatch
