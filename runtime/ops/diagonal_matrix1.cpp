// DML_DIAGONAL_MATRIX1 (OPERATORS.md, "DML_DIAGONAL_MATRIX1"): a stack of
// matrices holding Value on a diagonal band and the input (or 0) elsewhere.
#include "interface/diagonal_matrix1.h"
#include "core/internal.hpp"
#include "operators.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr const char* kOp = "DML_DIAGONAL_MATRIX1";

using shader::DiagonalParams;

struct DiagonalMatrix1Plan : OperatorPlan {
  std::optional<TensorInfo> input;
  TensorInfo output;
  DiagonalParams params{};

  std::vector<Dispatch> plan(const DeviceInfo&, const CompileOptions&, const PlanDefaults&) const override {
    bool index64 =
        output.footprintElements > (uint64_t(1) << 32) || (input && input->footprintElements > (uint64_t(1) << 32));
    DiagonalParams p = params;
    const LaneGrid grid = laneGrid(p.sizes[3], p.rows, 0);  // the kernel's one loop per row walks it
    p.columnShift = grid.columnShift;
    p.rowStride = grid.rowStride;
    Dispatch d;
    d.kernel = diagonalMatrix1Kernel(output.elementSize, index64 ? 64 : 32);
    shader::DiagonalMatrix1Constants constants;
    constants.WORKGROUP_SIZE = LaneGrid::kGroupSize;
    d.specialization = shader::specializationOf(constants);
    d.params = bytesOf(p);
    d.groups = {grid.groups, 1, 1};
    d.loopPasses = grid.loopPasses;
    return {d};
  }
};

// A tensor's sizes and strides as {batch0, batch1, y, x}: leading 1s (stride 0).
void toFourDims(const TensorInfo& t, uint32_t* sizes, int64_t* strides) {
  for (uint32_t i = 0; i < 4; ++i) {
    const int32_t from = static_cast<int32_t>(t.rank) - 4 + static_cast<int32_t>(i);
    if (sizes) sizes[i] = from < 0 ? 1 : t.sizes[from];
    strides[i] = from < 0 ? 0 : static_cast<int64_t>(t.strides[from]);
  }
}
}  // namespace

// Any type, the same for both (readTensor, requireSameType).
constexpr TensorDataTypes kDiagonalMatrix1Tensors[] = {{"InputTensor", false, kAnyDataType},
                                                       {"OutputTensor", true, kAnyDataType}};
extern const OperatorDataTypes kDiagonalMatrix1DataTypes{kDiagonalMatrix1Tensors, std::size(kDiagonalMatrix1Tensors)};

std::shared_ptr<OperatorPlan> createDiagonalMatrix1(const DML_DIAGONAL_MATRIX1_OPERATOR_DESC& desc) {
  auto p = std::make_shared<DiagonalMatrix1Plan>();
  p->type = DML_OPERATOR_DIAGONAL_MATRIX1;
  p->name = kOp;
  p->input = readTensor(kOp, "InputTensor", desc.InputTensor, TensorRole::Input, true);
  p->output = *readTensor(kOp, "OutputTensor", desc.OutputTensor, TensorRole::Output, false);
  const TensorInfo& out = p->output;
  requireRank(kOp, "OutputTensor", out, 2, 4);
  if (p->input) {
    const TensorInfo& in = *p->input;
    requireSameType(kOp, "InputTensor", in, "OutputTensor", out);
    if (in.rank != out.rank)
      throwInvalid(kOp, "InputTensor.DimensionCount",
                   concat("must equal OutputTensor.DimensionCount ", out.rank, ", not ", in.rank));
    for (uint32_t i = 0; i < out.rank; ++i)
      if (in.sizes[i] != out.sizes[i])
        throwInvalid(kOp, concat("InputTensor.Sizes[", i, "]"),
                     concat("must equal OutputTensor.Sizes[", i, "] = ", out.sizes[i], ", not ", in.sizes[i], " (",
                            in.shape(), " vs ", out.shape(), ")"));
  }
  const uint32_t valueType = rawBits(desc.ValueDataType);
  if (valueType != static_cast<uint32_t>(out.dataType))
    throwInvalid(kOp, "ValueDataType",
                 concat("must equal OutputTensor.DataType ", dataTypeName(out.dataType), ", not ",
                        dataTypeName(valueType), " (", valueType, ")"));

  DiagonalParams& params = p->params;
  toFourDims(out, params.sizes, params.outputStrides);
  if (p->input) toFourDims(*p->input, nullptr, params.inputStrides);
  // Value's bit pattern: the union's first elementSize bytes (FLOAT16: the
  // low two), zero-extended.
  uint64_t bits = 0;
  std::memcpy(&bits, desc.Value.Bytes, out.elementSize);
  params.value[0] = static_cast<uint32_t>(bits);
  params.value[1] = static_cast<uint32_t>(bits >> 32);
  params.fillBegin = desc.DiagonalFillBegin;
  params.fillEnd = desc.DiagonalFillEnd;
  params.rows = static_cast<uint32_t>(out.elementCount / params.sizes[3]);
  params.hasInput = p->input ? 1 : 0;

  p->inputs = {{"InputTensor", p->input}};
  p->outputs = {{"OutputTensor", out}};
  return p;
}

}  // namespace detail
}  // namespace vkdml
