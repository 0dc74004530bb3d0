// DML_DIAGONAL_MATRIX1 (OPERATORS.md, "DML_DIAGONAL_MATRIX1"): a stack of
// matrices holding Value on a diagonal band and the input (or 0) elsewhere.
#include "interface/diagonal_matrix1.h"
#include "core/copy.hpp"
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

  std::vector<Dispatch> plan(const DeviceInfo& device, const CompileOptions& options,
                             const PlanDefaults& defaults) const override {
    if (transfersAllowed(device, options, defaults))
      if (auto transfer = planTransfer()) return {*transfer};
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

  // The CPU plan (copy.hpp, planTransfer): each row is at most three runs
  // split at the band's limits, each wholly Value or wholly the input (or
  // 0): a fill of Value's bits, a region copied from the input, or a fill of
  // zeros; neighbouring fills of the same bits merge. Where rows are
  // contiguous in both tensors, elements are 4 bytes, or 8 with equal
  // halves (a fill repeats 4 bytes, at offsets that are multiples of 4), and
  // the runs are few and long enough; otherwise nothing (the kernel).
  std::optional<Dispatch> planTransfer() const {
    const uint32_t es = output.elementSize;
    const auto& s = params.sizes;
    const bool wordElements = es == 4 || (es == 8 && params.value[0] == params.value[1]);
    if (!wordElements || output.strides[output.rank - 1] != 1 || output.offsetAlignment % 4 != 0 ||
        (input && input->strides[input->rank - 1] != 1))
      return std::nullopt;
    const uint64_t rows = params.rows, width = s[3];
    if (rows > kMaxTransferCommands) return std::nullopt;
    Dispatch d;
    d.loopPasses = 0;  // no kernel, no loops
    Dispatch::Transfer copy{0, 1, {}};
    auto fill = [&](uint64_t offset, uint64_t size, uint32_t data) {
      if (!d.fills.empty()) {
        Dispatch::Fill& last = d.fills.back();
        if (last.data == data && last.offset + last.size == offset) return void(last.size += size);
      }
      d.fills.push_back({1, offset, size, data});
    };
    const bool inverted = params.fillEnd >= params.fillBegin;
    for (uint64_t row = 0; row < rows; ++row) {
      const uint64_t y = row % s[2], b1 = (row / s[2]) % s[1], b0 = row / s[2] / s[1];
      const auto limit = [&](int32_t v) {  // y + v clamped into [0, width], in 64 bits as in the kernel
        return static_cast<uint64_t>(std::clamp<int64_t>(static_cast<int64_t>(y) + v, 0, width));
      };
      const uint64_t atLeast = limit(params.fillBegin), below = limit(params.fillEnd);
      const uint64_t cuts[4] = {0, std::min(atLeast, below), std::max(atLeast, below), width};
      const auto offset = [&](const int64_t* strides) {
        return b0 * static_cast<uint64_t>(strides[0]) + b1 * static_cast<uint64_t>(strides[1]) +
               y * static_cast<uint64_t>(strides[2]);
      };
      const uint64_t outputRow = offset(params.outputStrides), inputRow = offset(params.inputStrides);
      for (int run = 0; run < 3; ++run) {
        const uint64_t x = cuts[run], length = cuts[run + 1] - x;
        if (length == 0) continue;
        const bool useValue = (inverted != (x >= atLeast)) != (x < below);
        if (useValue)
          fill((outputRow + x) * es, length * es, params.value[0]);
        else if (input)
          copy.regions.push_back({(inputRow + x) * es, (outputRow + x) * es, length * es});
        else
          fill((outputRow + x) * es, length * es, 0);
      }
      if (copy.regions.size() + d.fills.size() > kMaxTransferCommands) return std::nullopt;
    }
    if (output.elementCount * es < (copy.regions.size() + d.fills.size()) * kMinTransferRunBytes) return std::nullopt;
    if (!copy.regions.empty()) d.transfers.push_back(std::move(copy));
    return d;
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
