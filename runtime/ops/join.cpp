// DML_JOIN: concatenation along one axis (OPERATORS.md, "DML_JOIN"), one
// dispatch for all inputs.
#include "core/copy.hpp"
#include "operators.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr const char* kOp = "DML_JOIN";

struct JoinPlan : OperatorPlan {
  std::vector<CopyBox> boxes;
  uint32_t elementSize = 0;
  uint64_t largestFootprint = 0;
  uint32_t baseAlignment = 0;  // the smallest of the tensors' offset alignments
  std::vector<Dispatch> plan(const DeviceInfo& device, const CompileOptions& options,
                             const PlanDefaults& defaults) const override {
    if (auto transfer = planTransfer(boxes, elementSize, device, options, defaults)) return {*transfer};
    return {planCopy(boxes, elementSize, indexBitsFor(largestFootprint, defaults), baseAlignment)};
  }
};
}  // namespace

// Any type, the same for all (readTensor, requireSameType).
constexpr TensorDataTypes kJoinTensors[] = {{"InputTensors", false, kAnyDataType},
                                            {"OutputTensor", true, kAnyDataType}};
extern const OperatorDataTypes kJoinDataTypes{kJoinTensors, std::size(kJoinTensors)};

std::shared_ptr<OperatorPlan> createJoin(const DML_JOIN_OPERATOR_DESC& desc) {
  auto p = std::make_shared<JoinPlan>();
  p->type = DML_OPERATOR_JOIN;
  p->name = kOp;
  if (desc.InputCount < 1) throwInvalid(kOp, "InputCount", "must be >= 1, not 0");
  if (!desc.InputTensors) throwInvalid(kOp, "InputTensors", "is null");
  TensorInfo out = *readTensor(kOp, "OutputTensor", desc.OutputTensor, TensorRole::Output, false);
  if (desc.Axis >= out.rank)
    throwInvalid(kOp, "Axis", concat("must be < OutputTensor.DimensionCount ", out.rank, ", not ", desc.Axis));
  const uint32_t axis = desc.Axis;
  uint64_t axisTotal = 0;
  p->largestFootprint = out.footprintElements;
  p->baseAlignment = out.offsetAlignment;
  p->elementSize = out.elementSize;
  for (uint32_t k = 0; k < desc.InputCount; ++k) {
    const std::string field = concat("InputTensors[", k, "]");
    TensorInfo in = *readTensor(kOp, field, &desc.InputTensors[k], TensorRole::Input, false);
    requireSameType(kOp, field, in, "OutputTensor", out);
    if (in.rank != out.rank)
      throwInvalid(kOp, field + ".DimensionCount",
                   concat("must equal OutputTensor.DimensionCount ", out.rank, ", not ", in.rank));
    for (uint32_t d = 0; d < out.rank; ++d)
      if (d != axis && in.sizes[d] != out.sizes[d])
        throwInvalid(kOp, concat(field, ".Sizes[", d, "]"),
                     concat("must equal OutputTensor.Sizes[", d, "] = ", out.sizes[d], " off the join axis ", axis,
                            ", not ", in.sizes[d], " (", in.shape(), " vs output ", out.shape(), ")"));
    if (axisTotal + in.sizes[axis] > out.sizes[axis])
      throwInvalid(
          kOp, concat(field, ".Sizes[", axis, "]"),
          concat("the inputs' sizes along Axis ", axis, " up to this one add up to ", axisTotal + in.sizes[axis],
                 ", more than OutputTensor.Sizes[", axis, "] = ", out.sizes[axis]));
    CopyBox box = boxOf(in, out, k, desc.InputCount);
    box.sizes = in.sizes;
    box.outputOffset = axisTotal * out.strides[axis];
    axisTotal += in.sizes[axis];
    p->boxes.push_back(box);
    p->largestFootprint = std::max(p->largestFootprint, in.footprintElements);
    p->baseAlignment = std::min(p->baseAlignment, in.offsetAlignment);
    p->inputs.push_back({field, in});
  }
  if (axisTotal != out.sizes[axis])
    throwInvalid(kOp, concat("OutputTensor.Sizes[", axis, "]"),
                 concat("must equal the sum of the inputs' sizes along Axis ", axis, " = ", axisTotal, ", not ",
                        out.sizes[axis]));
  p->outputs = {{"OutputTensor", out}};
  return p;
}

}  // namespace detail
}  // namespace vkdml
