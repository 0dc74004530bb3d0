// DML_SLICE1: a strided window of the input (OPERATORS.md, "DML_SLICE1").
#include <cstdlib>

#include "core/copy.hpp"
#include "operators.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr const char* kOp = "DML_SLICE1";

struct Slice1Plan : OperatorPlan {
  CopyBox box;
  TensorInfo input, output;
  std::vector<Dispatch> plan(const DeviceInfo& device, const CompileOptions& options,
                             const PlanDefaults& defaults) const override {
    if (auto transfer = planTransfer({box}, output.elementSize, device, options, defaults)) return {*transfer};
    return {planCopy({box}, output.elementSize,
                     indexBitsFor(std::max(input.footprintElements, output.footprintElements), defaults),
                     std::min(input.offsetAlignment, output.offsetAlignment))};
  }
};
}  // namespace

// Any type, the same for both (readTensor, requireSameType).
constexpr TensorDataTypes kSlice1Tensors[] = {{"InputTensor", false, kAnyDataType},
                                              {"OutputTensor", true, kAnyDataType}};
extern const OperatorDataTypes kSlice1DataTypes{kSlice1Tensors, std::size(kSlice1Tensors)};

std::shared_ptr<OperatorPlan> createSlice1(const DML_SLICE1_OPERATOR_DESC& desc) {
  auto p = std::make_shared<Slice1Plan>();
  p->type = DML_OPERATOR_SLICE1;
  p->name = kOp;
  p->input = *readTensor(kOp, "InputTensor", desc.InputTensor, TensorRole::Input, false);
  p->output = *readTensor(kOp, "OutputTensor", desc.OutputTensor, TensorRole::Output, false);
  const TensorInfo& in = p->input;
  const TensorInfo& out = p->output;
  const uint32_t n = desc.DimensionCount;
  if (n < 1 || n > kMaxDims) throwInvalid(kOp, "DimensionCount", concat("must be 1..8, not ", n));
  if (in.rank != n)
    throwInvalid(kOp, "InputTensor.DimensionCount", concat("must equal DimensionCount ", n, ", not ", in.rank));
  if (out.rank != n)
    throwInvalid(kOp, "OutputTensor.DimensionCount", concat("must equal DimensionCount ", n, ", not ", out.rank));
  requireSameType(kOp, "OutputTensor", out, "InputTensor", in);
  if (!desc.InputWindowOffsets) throwInvalid(kOp, "InputWindowOffsets", "is null");
  if (!desc.InputWindowSizes) throwInvalid(kOp, "InputWindowSizes", "is null");
  if (!desc.InputWindowStrides) throwInvalid(kOp, "InputWindowStrides", "is null");

  CopyBox& box = p->box;
  box.rank = n;
  box.inputSlot = 0;
  box.outputSlot = 1;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t offset = desc.InputWindowOffsets[i];
    const uint64_t size = desc.InputWindowSizes[i];
    const int64_t stride = desc.InputWindowStrides[i];
    if (size < 1) throwInvalid(kOp, concat("InputWindowSizes[", i, "]"), "must be >= 1, not 0");
    if (offset + size > in.sizes[i])
      throwInvalid(kOp, concat("InputWindowSizes[", i, "]"),
                   concat("InputWindowOffsets[", i, "] + InputWindowSizes[", i, "] must be <= InputTensor.Sizes[", i,
                          "] (", offset, " + ", size, " > ", in.sizes[i], ")"));
    if (stride == 0) throwInvalid(kOp, concat("InputWindowStrides[", i, "]"), "must not be 0");
    const uint64_t maxOut = 1 + (size - 1) / static_cast<uint64_t>(std::llabs(stride));
    if (out.sizes[i] > maxOut)
      throwInvalid(kOp, concat("OutputTensor.Sizes[", i, "]"),
                   concat("must be <= 1 + (InputWindowSizes[", i, "] - 1) / |InputWindowStrides[", i, "]| = ", maxOut,
                          " (window ", size, ", stride ", stride, "), not ", out.sizes[i]));
    const uint64_t start = offset + (stride < 0 ? size - 1 : 0);
    box.sizes[i] = out.sizes[i];
    box.inputStrides[i] = stride * static_cast<int64_t>(in.strides[i]);
    box.outputStrides[i] = static_cast<int64_t>(out.strides[i]);
    box.inputOffset += start * in.strides[i];
  }
  p->inputs = {{"InputTensor", in}};
  p->outputs = {{"OutputTensor", out}};
  return p;
}

}  // namespace detail
}  // namespace vkdml
