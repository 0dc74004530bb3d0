// DML_CONVOLUTION_INTEGER (OPERATORS.md, "DML_CONVOLUTION_INTEGER"): the
// descriptor's rules, which fill its plan (convolution_integer.hpp; the
// dispatches: convolution_integer_plan.cpp).
#include <algorithm>

#include "convolution_integer.hpp"
#include "operators.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr const char* kOp = kConvolutionIntegerOp;
constexpr uint32_t kOperandTypes = dataTypeMask({DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT8});
constexpr uint32_t kOutputTypes = dataTypeMask({DML_TENSOR_DATA_TYPE_INT32});

// Names of the spatial quantities in error messages, by spatial dimension.
struct SpatialNames {
  const char *in, *kernel, *stride, *dilation, *pad0, *pad1;
};
constexpr SpatialNames kNames2[2] = {{"H", "KH", "Sy", "Dy", "Py0", "Py1"}, {"W", "KW", "Sx", "Dx", "Px0", "Px1"}};
constexpr SpatialNames kNames1 = {"W", "KW", "Sx", "Dx", "Px0", "Px1"};

}  // namespace

// The zero points of their operand's type (requireSameType).
constexpr TensorDataTypes kConvolutionIntegerTensors[] = {{"InputTensor", false, kOperandTypes},
                                                          {"InputZeroPointTensor", false, kOperandTypes},
                                                          {"FilterTensor", false, kOperandTypes},
                                                          {"FilterZeroPointTensor", false, kOperandTypes},
                                                          {"OutputTensor", true, kOutputTypes}};
extern const OperatorDataTypes kConvolutionIntegerDataTypes{kConvolutionIntegerTensors,
                                                            std::size(kConvolutionIntegerTensors)};

std::shared_ptr<OperatorPlan> createConvolutionInteger(const DML_CONVOLUTION_INTEGER_OPERATOR_DESC& desc) {
  auto p = std::make_shared<ConvolutionIntegerPlan>();
  p->type = DML_OPERATOR_CONVOLUTION_INTEGER;
  p->name = kOp;
  p->input = *readTensor(kOp, "InputTensor", desc.InputTensor, TensorRole::Input, false);
  p->inputZeroPoint = readTensor(kOp, "InputZeroPointTensor", desc.InputZeroPointTensor, TensorRole::Input, true);
  p->filter = *readTensor(kOp, "FilterTensor", desc.FilterTensor, TensorRole::Input, false);
  p->filterZeroPoint = readTensor(kOp, "FilterZeroPointTensor", desc.FilterZeroPointTensor, TensorRole::Input, true);
  p->output = *readTensor(kOp, "OutputTensor", desc.OutputTensor, TensorRole::Output, false);
  const TensorInfo& in = p->input;
  const TensorInfo& filter = p->filter;
  const TensorInfo& out = p->output;

  // Ranks: {N, C, [H], W}, the filter and output alike; DimensionCount spatial.
  requireRank(kOp, "InputTensor", in, 3, 4);
  const uint32_t rank = in.rank;
  if (filter.rank != rank)
    throwInvalid(kOp, "FilterTensor.DimensionCount",
                 concat("must equal InputTensor.DimensionCount ", rank, ", not ", filter.rank));
  if (out.rank != rank)
    throwInvalid(kOp, "OutputTensor.DimensionCount",
                 concat("must equal InputTensor.DimensionCount ", rank, ", not ", out.rank));
  const uint32_t spatial = rank - 2;
  if (desc.DimensionCount != spatial)
    throwInvalid(kOp, "DimensionCount",
                 concat("must be InputTensor.DimensionCount - 2 = ", spatial, " (the spatial dimensions), not ",
                        desc.DimensionCount));
  p->spatialDims = spatial;

  // Types.
  requireType(kOp, "InputTensor", in, kOperandTypes);
  requireType(kOp, "FilterTensor", filter, kOperandTypes);
  if (p->inputZeroPoint) requireSameType(kOp, "InputZeroPointTensor", *p->inputZeroPoint, "InputTensor", in);
  if (p->filterZeroPoint) requireSameType(kOp, "FilterZeroPointTensor", *p->filterZeroPoint, "FilterTensor", filter);
  requireType(kOp, "OutputTensor", out, kOutputTypes);

  // Parameter arrays.
  const std::pair<const char*, const UINT*> arrays[] = {{"Strides", desc.Strides},
                                                        {"Dilations", desc.Dilations},
                                                        {"StartPadding", desc.StartPadding},
                                                        {"EndPadding", desc.EndPadding}};
  for (const auto& [name, values] : arrays)
    if (!values) throwInvalid(kOp, name, "is null");
  for (uint32_t i = 0; i < spatial; ++i) {
    if (desc.Strides[i] < 1) throwInvalid(kOp, concat("Strides[", i, "]"), "must be >= 1, not 0");
    if (desc.Dilations[i] < 1) throwInvalid(kOp, concat("Dilations[", i, "]"), "must be >= 1, not 0");
  }

  // Channels and groups.
  const uint32_t channels = in.sizes[1], outChannels = filter.sizes[0], groups = desc.GroupCount;
  if (groups < 1) throwInvalid(kOp, "GroupCount", "must be >= 1, not 0");
  if (channels % groups)
    throwInvalid(kOp, "GroupCount",
                 concat("must divide the input channel count InputTensor.Sizes[1] = ", channels, ", not ", groups));
  if (outChannels % groups)
    throwInvalid(
        kOp, "GroupCount",
        concat("must divide the output channel count FilterTensor.Sizes[0] = ", outChannels, ", not ", groups));
  if (filter.sizes[1] != channels / groups)
    throwInvalid(kOp, "FilterTensor.Sizes[1]",
                 concat("must be InputTensor.Sizes[1] / GroupCount = ", channels, " / ", groups, " = ",
                        channels / groups, ", not ", filter.sizes[1]));
  p->groups = groups;

  // Zero points (DirectML from feature level 4.0): 1 to 4 dimensions, the
  // same for both; the input's per tensor, all 1; the filter's per tensor
  // or per output channel, { [1], OC, [1], [1] }: all 1 but the channel
  // dimension (zeroPointChannelDimension), which may be OC.
  auto zeroPointRank = [&](const char* field, const TensorInfo& z) {
    requireRank(kOp, field, z, 1, 4);
    if (p->inputZeroPoint && z.rank != p->inputZeroPoint->rank)
      throwInvalid(
          kOp, concat(field, ".DimensionCount"),
          concat("must equal InputZeroPointTensor.DimensionCount ", p->inputZeroPoint->rank, ", not ", z.rank));
  };
  if (p->inputZeroPoint) {
    const TensorInfo& z = *p->inputZeroPoint;
    zeroPointRank("InputZeroPointTensor", z);
    for (uint32_t i = 0; i < z.rank; ++i)
      if (z.sizes[i] != 1)
        throwInvalid(kOp, concat("InputZeroPointTensor.Sizes[", i, "]"),
                     concat("must be 1 (one zero point per tensor; Sizes ", z.shape(), ")"));
  }
  if (p->filterZeroPoint) {
    const TensorInfo& z = *p->filterZeroPoint;
    zeroPointRank("FilterZeroPointTensor", z);
    const uint32_t c = zeroPointChannelDimension(z.rank);
    for (uint32_t i = 0; i < z.rank; ++i) {
      if (i == c && (z.sizes[c] == 1 || z.sizes[c] == outChannels)) continue;
      if (i != c && z.sizes[i] == 1) continue;
      throwInvalid(
          kOp, concat("FilterZeroPointTensor.Sizes[", i, "]"),
          concat("must be ", i == c ? concat("1 or the output channel count ", outChannels) : "1",
                 " (sizes all 1 per tensor, { [1], OC, [1], [1] } per output channel; Sizes ", z.shape(), ")"));
    }
  }

  // Output shape: {N, OC, OH, OW}.
  if (out.sizes[0] != in.sizes[0])
    throwInvalid(kOp, "OutputTensor.Sizes[0]",
                 concat("must equal InputTensor.Sizes[0] (the batch) = ", in.sizes[0], ", not ", out.sizes[0]));
  if (out.sizes[1] != outChannels)
    throwInvalid(
        kOp, "OutputTensor.Sizes[1]",
        concat("must equal FilterTensor.Sizes[0] (the output channels) = ", outChannels, ", not ", out.sizes[1]));
  bool fits32 = true;
  for (uint32_t i = 0; i < spatial; ++i) {
    const SpatialNames& n = spatial == 2 ? kNames2[i] : kNames1;
    const uint32_t d = 2 + i;
    const uint64_t size = in.sizes[d], kernel = filter.sizes[d];
    const uint64_t stride = desc.Strides[i], dilation = desc.Dilations[i];
    const uint64_t pad0 = desc.StartPadding[i], pad1 = desc.EndPadding[i];
    const uint64_t padded = size + pad0 + pad1;
    const uint64_t extent = (kernel - 1) * dilation + 1;
    if (extent > padded)
      throwInvalid(kOp, concat("FilterTensor.Sizes[", d, "]"),
                   concat("the dilated kernel (", n.kernel, "-1)*", n.dilation, " + 1 = (", kernel, "-1)*", dilation,
                          " + 1 = ", extent, " is larger than the padded input ", n.in, " + ", n.pad0, " + ", n.pad1,
                          " = ", size, " + ", pad0, " + ", pad1, " = ", padded, ", so the output would be empty"));
    const uint64_t expected = (padded - extent) / stride + 1;
    if (out.sizes[d] != expected)
      throwInvalid(kOp, concat("OutputTensor.Sizes[", d, "]"),
                   concat("must be ", expected, " = (", n.in, " + ", n.pad0, " + ", n.pad1, " - ((", n.kernel, "-1)*",
                          n.dilation, " + 1)) / ", n.stride, " + 1 = (", size, " + ", pad0, " + ", pad1, " - ((",
                          kernel, "-1)*", dilation, " + 1)) / ", stride, " + 1, not ", out.sizes[d]));
    // Spatial coordinates lie in [-pad0, size + pad1): 32-bit when that fits.
    if (padded >= (uint64_t(1) << 31)) fits32 = false;
    p->strides[i] = desc.Strides[i];
    p->dilations[i] = desc.Dilations[i];
    p->startPadding[i] = desc.StartPadding[i];
  }
  // Element offsets in 32 bits when every footprint fits.
  for (const TensorInfo* t : {&in, &filter, &out})
    if (t->footprintElements > (uint64_t(1) << 32)) fits32 = false;
  p->index64 = !fits32;

  p->inputs = {{"InputTensor", in},
               {"InputZeroPointTensor", p->inputZeroPoint},
               {"FilterTensor", filter},
               {"FilterZeroPointTensor", p->filterZeroPoint}};
  p->outputs = {{"OutputTensor", out}};
  return p;
}

}  // namespace detail
}  // namespace vkdml
