// DML_SCATTER_ND: output = input, then output[indices[j...]] = updates[j...]
// (OPERATORS.md, "DML_SCATTER_ND"). Two dispatches: the strided copy of the
// input (skipped in place), then shaders/scatter_nd.comp writing the updates.
// Where slices are long, a first dispatch marks the slices the updates will
// overwrite, so that the copy skips them (less traffic than PyTorch's
// clone + index_put, which copies them and then overwrites them).
#include <algorithm>

#include "core/copy.hpp"
#include "interface/scatter_nd.h"
#include "operators.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr const char* kOp = "DML_SCATTER_ND";
constexpr uint32_t kIndexTypes = dataTypeMask(
    {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT64});

using shader::ScatterBox;
using shader::ScatterParams;

// Slices at least this long are skipped by the copy when an update
// overwrites them (below it, marking them costs more than it saves).
constexpr uint64_t kMaskedSliceBytes = 64;

// The specialization constants of scatter_nd.comp for a grid and a MODE.
shader::Specialization scatterConstants(const RowGrid& grid, uint32_t mode) {
  shader::ScatterNdConstants constants;
  constants.WORKGROUP_X = grid.groupSize[0];
  constants.WORKGROUP_Y = grid.groupSize[1];
  constants.MODE = mode;
  return shader::specializationOf(constants);
}

// The box's dimensions, with collapse() merging those contiguous in both
// tensors (a packed slice becomes one dimension: no divisions in the kernel).
ScatterBox boxParams(const CopyBox& original, uint64_t& elements) {
  CopyBox box = collapse(original);
  ScatterBox s{};
  s.rank = box.rank;
  elements = 1;
  for (uint32_t i = 0; i < kMaxDims; ++i) s.sizes[i] = 1;
  for (uint32_t i = 0; i < box.rank; ++i) {
    const uint32_t at = kMaxDims - box.rank + i;
    s.sizes[at] = box.sizes[i];
    s.stridesA[at] = static_cast<uint64_t>(box.inputStrides[i]);
    s.stridesB[at] = static_cast<uint64_t>(box.outputStrides[i]);
    elements *= box.sizes[i];
  }
  return s;
}

struct ScatterNdPlan : OperatorPlan {
  TensorInfo input, indices, updates, output;
  uint32_t inputDims = 0, indicesDims = 0;

  // Targets (index tuples' destinations) with a bit each in the mask of
  // rows the copy skips; 0 where slices are too short to be worth it.
  uint64_t maskBits() const {
    const uint32_t dc = input.rank, k = indices.sizes[dc - 1];
    uint64_t targets = 1, slice = 1;
    for (uint32_t d = dc - inputDims; d < dc; ++d) (d < dc - inputDims + k ? targets : slice) *= output.sizes[d];
    return slice > 1 && slice * output.elementSize >= kMaskedSliceBytes ? targets : 0;
  }

  std::vector<Dispatch> plan(const DeviceInfo& device, const CompileOptions& options,
                             const PlanDefaults& defaults) const override {
    const uint32_t dc = input.rank;
    const uint32_t k = indices.sizes[dc - 1];
    const uint32_t sliceDims = inputDims - k;
    const uint32_t tupleDims = indicesDims - 1;

    // Slots: 0 input, 1 indices, 2 updates, 3 output, 4 the scratch (mask).
    // With a mask, three dispatches: mark each tuple's target, copy the
    // input but the marked slices, write the updates (clearing the marks).
    // A transfer (CPU devices) copies the whole input: no mask.
    CopyBox box = boxOf(input, output, 0, 3);
    std::optional<Dispatch> transfer = planTransfer({box}, output.elementSize, device, options, defaults);
    const bool masked = !transfer && maskBits() > 0;
    if (masked) {
      box.maskedDims = dc - inputDims + k;  // leading 1s, then the indexed dimensions
      box.maskSlot = 4;
    }
    Dispatch copy = transfer
                        ? *transfer
                        : planCopy({box}, output.elementSize,
                                   indexBitsFor(std::max(input.footprintElements, output.footprintElements), defaults),
                                   std::min(input.offsetAlignment, output.offsetAlignment));
    // In place the copy would copy each element onto itself: skip it (the
    // kernel checks when it runs; Device::execute skips it when recording).
    copy.skipWhenSlotsAlias = inPlace;
    if (inPlace && !transfer) skipCopyWhenAliased(copy);

    ScatterParams p{};
    p.k = k;
    p.componentStride = indices.strides[dc - 1];
    uint32_t targetStride = 1;
    for (uint32_t i = k; i-- > 0;) {
      const uint32_t d = dc - inputDims + i;
      p.inputSizes[i] = output.sizes[d];
      p.outputStrides[i] = output.strides[d];
      p.targetStrides[i] = targetStride;
      targetStride *= output.sizes[d];  // the targets' count is below 2^32 (elements are)
    }
    p.maskSlot = masked ? 4 : 0;
    CopyBox tuples;  // updates' leading dimensions are the indices' ones
    tuples.rank = tupleDims;
    for (uint32_t i = 0; i < tupleDims; ++i) {
      const uint32_t di = dc - indicesDims + i, du = dc - tupleDims - sliceDims + i;
      tuples.sizes[i] = indices.sizes[di];
      tuples.inputStrides[i] = static_cast<int64_t>(indices.strides[di]);
      tuples.outputStrides[i] = static_cast<int64_t>(updates.strides[du]);
    }
    CopyBox slice;  // updates' trailing dimensions are the output's last ones
    slice.rank = sliceDims;
    for (uint32_t i = 0; i < sliceDims; ++i) {
      const uint32_t d = dc - sliceDims + i;
      slice.sizes[i] = output.sizes[d];
      slice.inputStrides[i] = static_cast<int64_t>(updates.strides[d]);
      slice.outputStrides[i] = static_cast<int64_t>(output.strides[d]);
    }
    uint64_t tupleCount = 0, sliceElements = 0;
    p.boxes[shader::TUPLES] = boxParams(tuples, tupleCount);
    p.boxes[shader::SLICE] = boxParams(slice, sliceElements);
    p.tupleCount = static_cast<uint32_t>(tupleCount);  // both divide Updates' element count (< 2^32)
    p.sliceElements = static_cast<uint32_t>(sliceElements);

    const uint64_t largest = std::max({indices.footprintElements, updates.footprintElements, output.footprintElements});
    const bool signedIndices =
        indices.dataType == DML_TENSOR_DATA_TYPE_INT32 || indices.dataType == DML_TENSOR_DATA_TYPE_INT64;
    Dispatch scatter;
    scatter.kernel =
        scatterNdKernel(output.elementSize, indices.elementSize, signedIndices, indexBitsFor(largest, defaults));
    // scatter_nd.comp's loops: per tuple, the decoding of its position
    // (boxOffsets over the tuples' dimensions) and the reading of its k
    // coordinates; per slice element, the decoding of its position.
    const uint64_t tuplePasses = loopPasses(p.boxes[shader::TUPLES].rank - 1) + loopPasses(k);
    const RowGrid grid = rowGrid(sliceElements, tupleCount, tuplePasses, loopPasses(p.boxes[shader::SLICE].rank - 1));
    scatter.specialization = scatterConstants(grid, shader::MODE_SCATTER);
    scatter.groups = grid.groups;
    scatter.params = bytesOf(p);
    scatter.loopPasses = grid.loopPasses;
    if (!masked) return {copy, scatter};

    Dispatch mark = scatter;
    const RowGrid tuplesOnly = rowGrid(1, tupleCount, tuplePasses, 0);  // MODE_MARK walks no slice
    mark.specialization = scatterConstants(tuplesOnly, shader::MODE_MARK);
    mark.groups = tuplesOnly.groups;
    mark.loopPasses = tuplesOnly.loopPasses;
    mark.skipWhenSlotsAlias = copy.skipWhenSlotsAlias;  // in place, nothing is copied
    mark.scratchBytes = copy.scratchBytes = scatter.scratchBytes = (maskBits() + 31) / 32 * 4;
    mark.zeroScratch = true;  // the mask starts clear
    return {mark, copy, scatter};
  }
};
}  // namespace

// The updates and the output of the input's type (requireSameType).
constexpr TensorDataTypes kScatterNdTensors[] = {{"InputTensor", false, kAnyDataType},
                                                 {"IndicesTensor", false, kIndexTypes},
                                                 {"UpdatesTensor", false, kAnyDataType},
                                                 {"OutputTensor", true, kAnyDataType}};
extern const OperatorDataTypes kScatterNdDataTypes{kScatterNdTensors, std::size(kScatterNdTensors)};

std::shared_ptr<OperatorPlan> createScatterNd(const DML_SCATTER_ND_OPERATOR_DESC& desc) {
  auto p = std::make_shared<ScatterNdPlan>();
  p->type = DML_OPERATOR_SCATTER_ND;
  p->name = kOp;
  p->input = *readTensor(kOp, "InputTensor", desc.InputTensor, TensorRole::Input, false);
  p->indices = *readTensor(kOp, "IndicesTensor", desc.IndicesTensor, TensorRole::Input, false);
  p->updates = *readTensor(kOp, "UpdatesTensor", desc.UpdatesTensor, TensorRole::Input, false);
  p->output = *readTensor(kOp, "OutputTensor", desc.OutputTensor, TensorRole::Output, false);
  const TensorInfo& in = p->input;
  const TensorInfo& indices = p->indices;
  const TensorInfo& updates = p->updates;
  const TensorInfo& out = p->output;

  // One DimensionCount for all four tensors (callers pad with leading 1s).
  const uint32_t dc = in.rank;
  for (auto [field, t] : {std::pair{"IndicesTensor", &indices}, {"UpdatesTensor", &updates}, {"OutputTensor", &out}})
    if (t->rank != dc)
      throwInvalid(kOp, concat(field, ".DimensionCount"),
                   concat("must equal InputTensor.DimensionCount ", dc, ", not ", t->rank,
                          " (all four tensors share one DimensionCount: pad shapes with leading 1s)"));
  requireSameType(kOp, "UpdatesTensor", updates, "InputTensor", in);
  requireSameType(kOp, "OutputTensor", out, "InputTensor", in);
  requireType(kOp, "IndicesTensor", indices, kIndexTypes);
  for (uint32_t d = 0; d < dc; ++d)
    if (out.sizes[d] != in.sizes[d])
      throwInvalid(kOp, concat("OutputTensor.Sizes[", d, "]"),
                   concat("must equal InputTensor.Sizes[", d, "] = ", in.sizes[d], ", not ", out.sizes[d], " (output ",
                          out.shape(), " vs input ", in.shape(), ")"));

  // The meaningful shapes: the last InputDimensionCount / IndicesDimensionCount dimensions.
  const uint32_t inputDims = desc.InputDimensionCount, indicesDims = desc.IndicesDimensionCount;
  if (inputDims < 1 || inputDims > dc)
    throwInvalid(kOp, "InputDimensionCount",
                 concat("must be 1..InputTensor.DimensionCount = 1..", dc, ", not ", inputDims));
  if (indicesDims < 1 || indicesDims > dc)
    throwInvalid(kOp, "IndicesDimensionCount",
                 concat("must be 1..IndicesTensor.DimensionCount = 1..", dc, ", not ", indicesDims));
  for (uint32_t d = 0; d < dc - inputDims; ++d)
    if (in.sizes[d] != 1)
      throwInvalid(kOp, concat("InputTensor.Sizes[", d, "]"),
                   concat("must be 1: it precedes the last InputDimensionCount = ", inputDims, " dimensions (Sizes ",
                          in.shape(), ")"));
  for (uint32_t d = 0; d < dc - indicesDims; ++d)
    if (indices.sizes[d] != 1)
      throwInvalid(kOp, concat("IndicesTensor.Sizes[", d, "]"),
                   concat("must be 1: it precedes the last IndicesDimensionCount = ", indicesDims,
                          " dimensions (Sizes ", indices.shape(), ")"));
  const uint32_t k = indices.sizes[dc - 1];
  if (k > inputDims)
    throwInvalid(kOp, concat("IndicesTensor.Sizes[", dc - 1, "]"),
                 concat("the index tuple length must be <= InputDimensionCount = ", inputDims, ", not ", k, " (Sizes ",
                        indices.shape(), ")"));

  // Updates: the indices' meaningful shape without its last dimension, then
  // the input's meaningful shape without its first k, right-aligned.
  std::vector<uint32_t> expected;
  for (uint32_t d = dc - indicesDims; d < dc - 1; ++d) expected.push_back(indices.sizes[d]);
  for (uint32_t d = dc - inputDims + k; d < dc; ++d) expected.push_back(in.sizes[d]);
  const std::string expectedShape = list(expected.data(), static_cast<uint32_t>(expected.size()));
  const std::string why = concat("IndicesTensor's last IndicesDimensionCount dimensions but the last, then ",
                                 "InputTensor's last InputDimensionCount dimensions but the first k = ", k);
  if (expected.size() > dc)
    throwInvalid(kOp, "UpdatesTensor.DimensionCount",
                 concat("the updates' shape ", expectedShape, " (", why, ") has ", expected.size(),
                        " dimensions, more than the DimensionCount ", dc, " the four tensors share"));
  expected.insert(expected.begin(), dc - expected.size(), 1);
  for (uint32_t d = 0; d < dc; ++d)
    if (updates.sizes[d] != expected[d])
      throwInvalid(kOp, concat("UpdatesTensor.Sizes[", d, "]"),
                   concat("must be ", expected[d], ", not ", updates.sizes[d], ": UpdatesTensor.Sizes must be ",
                          list(expected.data(), dc), " (", why, "), not ", updates.shape()));

  p->inputDims = inputDims;
  p->indicesDims = indicesDims;
  // In place: the output bound to exactly the input's range, with the same
  // layout, so that the copy of the input can be skipped.
  if (in.sameLayout(out)) p->inPlace = std::make_pair(0u, 3u);
  p->inputs = {{"InputTensor", in}, {"IndicesTensor", indices}, {"UpdatesTensor", updates}};
  p->outputs = {{"OutputTensor", out}};
  return p;
}

}  // namespace detail
}  // namespace vkdml
