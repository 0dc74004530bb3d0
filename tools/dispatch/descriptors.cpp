#include "descriptors.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "data_types.hpp"

namespace dispatch {

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

class Builder {
 public:
  Builder(const Dispatchable& d, BuiltDescriptor& out, const char* op) : d_(d), out_(out), op_(op) {}

  [[noreturn]] void fail(const std::string& field, const std::string& rule) const {
    throw ModelError(d_.locate(field), "dispatchables." + d_.name + ": " + op_ + ": " + field + ": " + rule);
  }

  // Reserves room for `count` tensors: descriptors point into these vectors.
  void reserve(size_t count) {
    out_.buffers.reserve(count);
    out_.tensors.reserve(count);
  }
  const DML_TENSOR_DESC* tensor(const TensorDesc& t) {
    DML_BUFFER_TENSOR_DESC b{};
    b.DataType = t.dataType;
    b.Flags = static_cast<DML_TENSOR_FLAGS>(t.flags);
    b.DimensionCount = static_cast<UINT>(t.sizes.size());
    b.Sizes = array(t.sizes);
    b.Strides = t.strides.empty() ? nullptr : array(t.strides);
    b.TotalTensorSizeInBytes = t.totalTensorSizeInBytes
                                   ? t.totalTensorSizeInBytes
                                   : vkdmlCalcBufferTensorSize(t.dataType, b.DimensionCount, b.Sizes, b.Strides);
    b.GuaranteedBaseOffsetAlignment = t.guaranteedBaseOffsetAlignment;
    out_.buffers.push_back(b);
    out_.tensors.push_back({DML_TENSOR_TYPE_BUFFER, &out_.buffers.back()});
    return &out_.tensors.back();
  }
  const DML_TENSOR_DESC* optionalTensor(const std::optional<TensorDesc>& t) { return t ? tensor(*t) : nullptr; }
  const UINT* array(const std::vector<uint32_t>& v) {
    out_.arrays.push_back(v);
    return out_.arrays.back().data();
  }
  const INT* signedArray(const std::vector<int32_t>& v) {
    out_.signedArrays.push_back(v);
    return out_.signedArrays.back().data();
  }
  // An array field must hold `count` values: vkdml reads that many.
  template <class T>
  void checkLength(const std::vector<T>& v, const char* field, uint32_t count, const char* countField) const {
    if (v.size() != count)
      fail(field, "has " + std::to_string(v.size()) + " values but " + countField + " is " + std::to_string(count));
  }

 private:
  const Dispatchable& d_;
  BuiltDescriptor& out_;
  std::string op_;
};

// SLICE -> SLICE1 (see the lowering in docs/vkdml-dispatch.md): the window of each
// dimension spans (Sizes - 1) * Strides + 1 input elements, so SLICE1's
// output count 1 + (window - 1) / stride is Sizes again, and its bound
// Offsets + window <= InputTensor.Sizes is SLICE's last-read rule.
DML_SLICE1_OPERATOR_DESC lowerSlice(const SliceDesc& s, Builder& b) {
  b.checkLength(s.offsets, "Offsets", s.dimensionCount, "DimensionCount");
  b.checkLength(s.sizes, "Sizes", s.dimensionCount, "DimensionCount");
  b.checkLength(s.strides, "Strides", s.dimensionCount, "DimensionCount");
  std::vector<uint32_t> windows;
  std::vector<int32_t> strides;
  for (uint32_t i = 0; i < s.dimensionCount; ++i) {
    std::string at = "[" + std::to_string(i) + "]";
    if (s.strides[i] < 1) b.fail("Strides" + at, "must be >= 1, not 0");
    if (s.strides[i] > uint32_t(INT32_MAX))
      b.fail("Strides" + at, "must be <= 2147483647 (SLICE1's INT strides), not " + std::to_string(s.strides[i]));
    if (s.sizes[i] < 1) b.fail("Sizes" + at, "must be >= 1, not 0");
    if (s.output.sizes.size() == s.dimensionCount && s.sizes[i] != s.output.sizes[i])
      b.fail("Sizes" + at, "must equal OutputTensor.Sizes" + at + " (" + std::to_string(s.sizes[i]) +
                               " != " + std::to_string(s.output.sizes[i]) + ")");
    uint64_t window = uint64_t(s.sizes[i] - 1) * s.strides[i] + 1;
    uint64_t last = s.offsets[i] + window - 1;
    if (s.input.sizes.size() == s.dimensionCount && last >= s.input.sizes[i])
      b.fail("Offsets" + at, "Offsets" + at + " + (Sizes" + at + " - 1) * Strides" + at +
                                 " must be < InputTensor.Sizes" + at + " (" + std::to_string(s.offsets[i]) + " + " +
                                 std::to_string(s.sizes[i] - 1) + " * " + std::to_string(s.strides[i]) + " = " +
                                 std::to_string(last) + " >= " + std::to_string(s.input.sizes[i]) + ")");
    if (window > UINT32_MAX) b.fail("Sizes" + at, "spans more than 2^32 - 1 input elements");
    windows.push_back(static_cast<uint32_t>(window));
    strides.push_back(static_cast<int32_t>(s.strides[i]));
  }
  b.reserve(2);
  DML_SLICE1_OPERATOR_DESC d{};
  d.InputTensor = b.tensor(s.input);
  d.OutputTensor = b.tensor(s.output);
  d.DimensionCount = s.dimensionCount;
  d.InputWindowOffsets = b.array(s.offsets);
  d.InputWindowSizes = b.array(windows);
  d.InputWindowStrides = b.signedArray(strides);
  return d;
}

// A number as short as reads back exactly: 1e+39, -10.6, 100000, nan.
std::string shortest(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[32];
  if (value == std::trunc(value) && std::fabs(value) < 1e16) {  // an integer in full: 100000, not 1e+05
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

// DIAGONAL_MATRIX's FLOAT Value as the output's type: floats as IEEE
// conversions (FLOAT16 to nearest even), integers truncated toward zero
// ("10.6 becomes 10"); a value the type cannot hold is rejected: a finite
// value that would become infinity (beyond the output's range or FLOAT's,
// the Value's own type) or an integer out of range. "nan", "inf" and
// "-inf" pass to float outputs. The value stays a double until checked.
DML_SCALAR_UNION lowerValue(double value, DML_TENSOR_DATA_TYPE type, Builder& b) {
  const std::string typeName = vkdml::toString(type);
  auto refuse = [&](const std::string& why = "") {
    b.fail("Value", "the output type " + typeName + " cannot hold " + shortest(value) + why);
  };
  // From here on a double rounds to FLOAT's infinity.
  constexpr double kFloatInfinity = 0x1.ffffffp127;
  DML_SCALAR_UNION u{};
  if (isFloat(type)) {
    if (std::isfinite(value) && std::fabs(value) >= kFloatInfinity) {
      if (type == DML_TENSOR_DATA_TYPE_FLOAT64)
        b.fail("Value", shortest(value) + " is beyond the range of FLOAT, the type of DIAGONAL_MATRIX's Value");
      refuse();
    }
    const float f = static_cast<float>(value);
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32) {
      u.Float32 = f;
    } else if (type == DML_TENSOR_DATA_TYPE_FLOAT64) {
      u.Float64 = f;  // the FLOAT Value, widened
    } else {
      u.UInt16 = halfNearestEven(f);
      if (std::isfinite(f) && (u.UInt16 & 0x7FFF) == 0x7C00) refuse();  // beyond 65504 once rounded
    }
    return u;
  }
  const uint32_t bits = 8 * vkdmlElementSizeInBytes(type);
  const double lo = isSigned(type) ? -std::ldexp(1.0, static_cast<int>(bits) - 1) : 0;
  const double hi =
      isSigned(type) ? std::ldexp(1.0, static_cast<int>(bits) - 1) : std::ldexp(1.0, static_cast<int>(bits));
  if (!(std::trunc(value) >= lo && std::trunc(value) < hi)) refuse();
  // The FLOAT Value (|value| < 2^64 here, so a float holds it), truncated:
  // rounding to FLOAT may carry it out of range (2147483647 becomes 2^31).
  const double t = std::trunc(static_cast<double>(static_cast<float>(value)));
  if (!(t >= lo && t < hi)) refuse(" (" + shortest(t) + " as a FLOAT)");
  if (isSigned(type))
    u.Int64 = static_cast<int64_t>(t);
  else
    u.UInt64 = static_cast<uint64_t>(t);
  if (bits < 64) u.UInt64 &= (uint64_t(1) << bits) - 1;  // the union's unused bytes stay 0
  return u;
}

// DIAGONAL_MATRIX -> DIAGONAL_MATRIX1: y + Offset == x is the band
// [Offset, Offset + 1) of x - y.
DML_DIAGONAL_MATRIX1_OPERATOR_DESC lowerDiagonal(const DiagonalMatrixDesc& s, Builder& b) {
  DML_DIAGONAL_MATRIX1_OPERATOR_DESC d{};
  int32_t end = s.offset == INT32_MAX ? INT32_MAX : s.offset + 1;
  // Clamped, the band is empty: only an output at least 2^31 wide has an
  // element on that diagonal.
  if (s.offset == INT32_MAX && !s.output.sizes.empty() && s.output.sizes.back() > uint32_t(INT32_MAX))
    b.fail("Offset", "2147483647 has no DIAGONAL_MATRIX1 band on an output this wide");
  b.reserve(1);
  d.InputTensor = nullptr;
  d.OutputTensor = b.tensor(s.output);
  d.ValueDataType = s.output.dataType;
  d.Value = lowerValue(s.value, s.output.dataType, b);
  d.DiagonalFillBegin = s.offset;
  d.DiagonalFillEnd = end;
  return d;
}

}  // namespace

const char* operatorName(const OperatorDesc& desc) {
  return std::visit(Overloaded{
                        [](const SliceDesc&) { return "DML_OPERATOR_SLICE"; },
                        [](const Slice1Desc&) { return "DML_OPERATOR_SLICE1"; },
                        [](const JoinDesc&) { return "DML_OPERATOR_JOIN"; },
                        [](const ScatterNdDesc&) { return "DML_OPERATOR_SCATTER_ND"; },
                        [](const DiagonalMatrixDesc&) { return "DML_OPERATOR_DIAGONAL_MATRIX"; },
                        [](const DiagonalMatrix1Desc&) { return "DML_OPERATOR_DIAGONAL_MATRIX1"; },
                        [](const ConvolutionIntegerDesc&) { return "DML_OPERATOR_CONVOLUTION_INTEGER"; },
                    },
                    desc);
}

std::vector<BindPointInfo> bindPoints(const OperatorDesc& desc) {
  return std::visit(
      Overloaded{
          [](const SliceDesc&) {
            return std::vector<BindPointInfo>{{"InputTensor", 1, true, false}, {"OutputTensor", 1, true, true}};
          },
          [](const Slice1Desc&) {
            return std::vector<BindPointInfo>{{"InputTensor", 1, true, false}, {"OutputTensor", 1, true, true}};
          },
          [](const JoinDesc& d) {
            return std::vector<BindPointInfo>{{"InputTensors", d.inputCount, true, false},
                                              {"OutputTensor", 1, true, true}};
          },
          [](const ScatterNdDesc&) {
            return std::vector<BindPointInfo>{{"InputTensor", 1, true, false},
                                              {"IndicesTensor", 1, true, false},
                                              {"UpdatesTensor", 1, true, false},
                                              {"OutputTensor", 1, true, true}};
          },
          [](const DiagonalMatrixDesc&) {
            return std::vector<BindPointInfo>{{"OutputTensor", 1, true, true}};
          },
          [](const DiagonalMatrix1Desc& d) {
            return std::vector<BindPointInfo>{{"InputTensor", 1, d.input.has_value(), false},
                                              {"OutputTensor", 1, true, true}};
          },
          [](const ConvolutionIntegerDesc& d) {
            return std::vector<BindPointInfo>{{"InputTensor", 1, true, false},
                                              {"InputZeroPointTensor", 1, d.inputZeroPoint.has_value(), false},
                                              {"FilterTensor", 1, true, false},
                                              {"FilterZeroPointTensor", 1, d.filterZeroPoint.has_value(), false},
                                              {"OutputTensor", 1, true, true}};
          },
      },
      desc);
}

std::unique_ptr<BuiltDescriptor> buildDescriptor(const Dispatchable& dispatchable) {
  auto out = std::make_unique<BuiltDescriptor>();
  Builder b(dispatchable, *out, operatorName(dispatchable.desc));
  std::visit(
      Overloaded{
          [&](const SliceDesc& s) {
            out->op = lowerSlice(s, b);
            out->desc = {DML_OPERATOR_SLICE1, &std::get<DML_SLICE1_OPERATOR_DESC>(out->op)};
          },
          [&](const Slice1Desc& s) {
            b.checkLength(s.offsets, "InputWindowOffsets", s.dimensionCount, "DimensionCount");
            b.checkLength(s.sizes, "InputWindowSizes", s.dimensionCount, "DimensionCount");
            b.checkLength(s.strides, "InputWindowStrides", s.dimensionCount, "DimensionCount");
            b.reserve(2);
            DML_SLICE1_OPERATOR_DESC d{};
            d.InputTensor = b.tensor(s.input);
            d.OutputTensor = b.tensor(s.output);
            d.DimensionCount = s.dimensionCount;
            d.InputWindowOffsets = b.array(s.offsets);
            d.InputWindowSizes = b.array(s.sizes);
            d.InputWindowStrides = b.signedArray(s.strides);
            out->op = d;
            out->desc = {DML_OPERATOR_SLICE1, &std::get<DML_SLICE1_OPERATOR_DESC>(out->op)};
          },
          [&](const JoinDesc& s) {
            b.checkLength(s.inputs, "InputTensors", s.inputCount, "InputCount");
            b.reserve(s.inputs.size() + 1);
            DML_JOIN_OPERATOR_DESC d{};
            d.InputCount = s.inputCount;
            for (const auto& t : s.inputs) {
              const DML_TENSOR_DESC* p = b.tensor(t);
              if (!d.InputTensors) d.InputTensors = p;
            }
            d.OutputTensor = b.tensor(s.output);
            d.Axis = s.axis;
            out->op = d;
            out->desc = {DML_OPERATOR_JOIN, &std::get<DML_JOIN_OPERATOR_DESC>(out->op)};
          },
          [&](const ScatterNdDesc& s) {
            b.reserve(4);
            DML_SCATTER_ND_OPERATOR_DESC d{};
            d.InputTensor = b.tensor(s.input);
            d.IndicesTensor = b.tensor(s.indices);
            d.UpdatesTensor = b.tensor(s.updates);
            d.OutputTensor = b.tensor(s.output);
            d.InputDimensionCount = s.inputDimensionCount;
            d.IndicesDimensionCount = s.indicesDimensionCount;
            out->op = d;
            out->desc = {DML_OPERATOR_SCATTER_ND, &std::get<DML_SCATTER_ND_OPERATOR_DESC>(out->op)};
          },
          [&](const DiagonalMatrixDesc& s) {
            out->op = lowerDiagonal(s, b);
            out->desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &std::get<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>(out->op)};
          },
          [&](const DiagonalMatrix1Desc& s) {
            b.reserve(2);
            DML_DIAGONAL_MATRIX1_OPERATOR_DESC d{};
            d.InputTensor = b.optionalTensor(s.input);
            d.OutputTensor = b.tensor(s.output);
            d.ValueDataType = s.valueDataType;
            d.Value = s.value;
            d.DiagonalFillBegin = s.diagonalFillBegin;
            d.DiagonalFillEnd = s.diagonalFillEnd;
            out->op = d;
            out->desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &std::get<DML_DIAGONAL_MATRIX1_OPERATOR_DESC>(out->op)};
          },
          [&](const ConvolutionIntegerDesc& s) {
            const std::pair<const char*, const std::vector<uint32_t>*> arrays[] = {{"Strides", &s.strides},
                                                                                   {"Dilations", &s.dilations},
                                                                                   {"StartPadding", &s.startPadding},
                                                                                   {"EndPadding", &s.endPadding}};
            for (const auto& [field, values] : arrays)
              b.checkLength(*values, field, s.dimensionCount, "DimensionCount");
            b.reserve(5);
            DML_CONVOLUTION_INTEGER_OPERATOR_DESC d{};
            d.InputTensor = b.tensor(s.input);
            d.InputZeroPointTensor = b.optionalTensor(s.inputZeroPoint);
            d.FilterTensor = b.tensor(s.filter);
            d.FilterZeroPointTensor = b.optionalTensor(s.filterZeroPoint);
            d.OutputTensor = b.tensor(s.output);
            d.DimensionCount = s.dimensionCount;
            d.Strides = b.array(s.strides);
            d.Dilations = b.array(s.dilations);
            d.StartPadding = b.array(s.startPadding);
            d.EndPadding = b.array(s.endPadding);
            d.GroupCount = s.groupCount;
            out->op = d;
            out->desc = {DML_OPERATOR_CONVOLUTION_INTEGER, &std::get<DML_CONVOLUTION_INTEGER_OPERATOR_DESC>(out->op)};
          },
      },
      dispatchable.desc);
  return out;
}

}  // namespace dispatch
