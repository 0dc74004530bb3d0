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
      if (auto transfers = planTransfer(device, options, defaults)) return *transfers;
    const uint32_t indexBits =
        indexBitsFor(std::max(output.footprintElements, input ? input->footprintElements : 0), defaults);
    DiagonalParams p = params;
    const LaneGrid grid = laneGrid(p.sizes[3], p.rows, 0);  // the kernel's one loop per row walks it
    p.columnShift = grid.columnShift;
    p.rowStride = grid.rowStride;
    Dispatch d;
    d.kernel = diagonalMatrix1Kernel(output.elementSize, indexBits);
    shader::DiagonalMatrix1Constants constants;
    constants.WORKGROUP_SIZE = LaneGrid::kGroupSize;
    d.specialization = shader::specializationOf(constants);
    d.params = bytesOf(p);
    d.groups = {grid.groups, 1, 1};
    d.loopPasses = grid.loopPasses;
    return {d};
  }

  // The CPU plan (copy.hpp, planTransfer), where rows are contiguous in
  // both tensors, elements are 4 bytes, or 8 with equal halves (a fill
  // repeats 4 bytes, at offsets that are multiples of 4), and the commands
  // are few and long enough; otherwise nothing (the kernel). Each row is at
  // most three runs split at the band's limits, each wholly Value or wholly
  // the input (or 0). Two shapes, whichever costOf finds cheaper (lavapipe
  // pays for each region and fill about as much as for KiB moved):
  // - per row, a fill of Value's bits, a region copied from the input or a
  //   fill of zeros for each run;
  // - layered: the input copied whole (or zeros filled), in as few regions as
  //   its layout allows, then, after a barrier, the fills of Value alone.
  // Neighbouring fills of the same bits, and regions that continue each
  // other in both tensors, merge.
  std::optional<std::vector<Dispatch>> planTransfer(const DeviceInfo& device, const CompileOptions& options,
                                                    const PlanDefaults& defaults) const {
    const uint32_t es = output.elementSize;
    const bool wordElements = es == 4 || (es == 8 && params.value[0] == params.value[1]);
    if (!wordElements || output.strides[output.rank - 1] != 1 || output.offsetAlignment % 4 != 0 ||
        (input && input->strides[input->rank - 1] != 1) || params.rows > kMaxTransferCommands)
      return std::nullopt;
    std::vector<Dispatch> perRow = {transferDispatch()};
    Dispatch::Transfer rowCopies{0, 1, {}};
    forEachRun([&](uint64_t outputAt, uint64_t inputAt, uint64_t length, bool useValue) {
      if (useValue)
        addFill(perRow[0], outputAt, length, params.value[0]);
      else if (input)
        addRegion(rowCopies, inputAt, outputAt, length);
      else
        addFill(perRow[0], outputAt, length, 0);
    });
    if (!rowCopies.regions.empty()) perRow[0].transfers.push_back(std::move(rowCopies));

    // The base: the input's box (planTransfer's regions) or zero fills of the output's rows.
    std::vector<Dispatch> layered;
    if (input) {
      auto base = detail::planTransfer({boxOf(*input, output, 0, 1)}, es, device, options, defaults);
      if (base) layered.push_back(std::move(*base));
    } else if (const CopyBox box = collapse(boxOf(output, output, 1, 1)); box.outputStrides[box.rank - 1] == 1) {
      // (Rows of one element collapse to a strided dimension: no runs to fill.)
      Dispatch zeros = transferDispatch();
      forEachRow(box, [&](uint64_t at, uint64_t length) { addFill(zeros, at, length, 0); });
      layered.push_back(std::move(zeros));
    }
    if (!layered.empty()) {
      Dispatch values = transferDispatch();
      forEachRun([&](uint64_t outputAt, uint64_t, uint64_t length, bool useValue) {
        if (useValue) addFill(values, outputAt, length, params.value[0]);
      });
      if (!values.fills.empty()) layered.push_back(std::move(values));
    }

    const uint64_t bytes = output.elementCount * es;
    std::optional<std::vector<Dispatch>> best;
    for (std::vector<Dispatch>* candidate : {&perRow, &layered}) {
      const uint64_t commands = commandsOf(*candidate);
      if (candidate->empty() || commands > kMaxTransferCommands || bytes < commands * kMinTransferRunBytes) continue;
      if (!best || costOf(*candidate) < costOf(*best)) best = *candidate;
    }
    return best;
  }

  // What lavapipe takes to run `dispatches`, in bytes copied at its memcpy
  // speed: each region costs about as much as 6.5 KB copied, each fill 2.3
  // KB, a byte filled half a byte copied (fitted to the diag cases of
  // bench/results/lavapipe.md, "DiagonalMatrix1 in layers"). Where the band keeps
  // little of the input, copying it whole first costs more than the
  // commands it saves.
  static uint64_t costOf(const std::vector<Dispatch>& dispatches) {
    constexpr uint64_t kRegion = 6500, kFill = 2300;
    uint64_t cost = 0;
    for (const Dispatch& d : dispatches) {
      for (const auto& f : d.fills) cost += kFill + f.size / 2;
      for (const auto& t : d.transfers)
        for (const VkBufferCopy& r : t.regions) cost += kRegion + r.size;
    }
    return cost;
  }

  static Dispatch transferDispatch() {
    Dispatch d;
    d.loopPasses = 0;  // no kernel, no loops
    return d;
  }
  static uint64_t commandsOf(const std::vector<Dispatch>& dispatches) {
    uint64_t n = 0;
    for (const Dispatch& d : dispatches) {
      n += d.fills.size();
      for (const auto& t : d.transfers) n += t.regions.size();
    }
    return n;
  }
  // A region of `length` elements from element `from` of the input to
  // element `to` of the output, merged into the last one where it continues it.
  void addRegion(Dispatch::Transfer& t, uint64_t from, uint64_t to, uint64_t length) const {
    const uint64_t es = output.elementSize;
    if (!t.regions.empty()) {
      VkBufferCopy& last = t.regions.back();
      if (last.srcOffset + last.size == from * es && last.dstOffset + last.size == to * es)
        return void(last.size += length * es);
    }
    t.regions.push_back({from * es, to * es, length * es});
  }
  // A fill of `length` elements at element `at` of the output (slot 1),
  // merged into the last fill where it continues it with the same bits.
  void addFill(Dispatch& d, uint64_t at, uint64_t length, uint32_t data) const {
    const uint64_t offset = at * output.elementSize, size = length * output.elementSize;
    if (!d.fills.empty()) {
      Dispatch::Fill& last = d.fills.back();
      if (last.data == data && last.offset + last.size == offset) return void(last.size += size);
    }
    d.fills.push_back({1, offset, size, data});
  }
  // Each run of each row, in row order: f(output element, input element, length, useValue).
  template <class F>
  void forEachRun(F&& f) const {
    const auto& s = params.sizes;
    const uint64_t width = s[3];
    const bool inverted = params.fillEnd >= params.fillBegin;
    for (uint64_t row = 0; row < params.rows; ++row) {
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
        f(outputRow + x, inputRow + x, length, useValue);
      }
    }
  }
  // Each row of a collapsed box with a unit innermost stride, in row-major
  // order: f(output element, length).
  template <class F>
  static void forEachRow(const CopyBox& box, F&& f) {
    const uint32_t last = box.rank - 1;
    uint64_t rows = 1;
    for (uint32_t d = 0; d < last; ++d) rows *= box.sizes[d];
    for (uint64_t row = 0; row < rows; ++row) {
      uint64_t at = box.outputOffset, rest = row;
      for (uint32_t d = last; d-- > 0;) {
        at += (rest % box.sizes[d]) * static_cast<uint64_t>(box.outputStrides[d]);
        rest /= box.sizes[d];
      }
      f(at, box.sizes[last]);
    }
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
