// scatter_nd.comp (runtime/ops/scatter_nd.cpp): ScatterND's scatter, after a copy.
#ifndef VKDML_INTERFACE_SCATTER_ND_H
#define VKDML_INTERFACE_SCATTER_ND_H
#include "common.h"

VKDML_INTERFACE_BEGIN

// MODE_SCATTER writes the updates (and clears the mask words of their
// targets, leaving the mask zero for the next execution); MODE_MARK, the
// first of three dispatches, sets each target's bit so that the copy between
// them skips the slices the updates overwrite.
const uint MODE_SCATTER = 0u;
const uint MODE_MARK = 1u;

// The workgroup: x along a slice, y over tuples (runtime: rowGrid).
#define VKDML_SCATTER_ND_CONSTANTS(X)   \
  X(WORKGROUP_X, 0, workgroupX, 1)      \
  X(WORKGROUP_Y, 1, workgroupY, 1)      \
  X(MODE, 2, uint, 0)

// A row-major box of elements addressed in two tensors A and B.
struct ScatterBox {
  uint64_t stridesA[MAX_DIMS];
  uint64_t stridesB[MAX_DIMS];
  uint sizes[MAX_DIMS];  // innermost last; `rank` dimensions used, aligned to the end
  uint rank;
  uint pad;
};
// ScatterParams.boxes.
const uint TUPLES = 0u;  // the indices' leading dimensions: A = indices, B = updates
const uint SLICE = 1u;   // one tuple's slice: A = updates, B = output

VKDML_PARAMS(ScatterParams) {
  ScatterBox boxes[2];              // TUPLES, SLICE
  uint64_t outputStrides[MAX_DIMS];  // output strides of the k indexed dimensions
  uint64_t componentStride;          // indices stride between a tuple's coordinates
  uint inputSizes[MAX_DIMS];         // sizes of the k indexed dimensions (for the clamp)
  uint targetStrides[MAX_DIMS];      // row-major strides of the k indexed dimensions: a target's mask bit
  uint k;
  uint tupleCount;
  uint sliceElements;
  uint maskSlot;  // 0: no mask
};

#ifdef __cplusplus
VKDML_SPECIALIZATION(ScatterNdConstants, VKDML_SCATTER_ND_CONSTANTS)
static_assert(sizeof(ScatterBox) == 168, "std430 layout of ScatterBox");
static_assert(sizeof(ScatterParams) == 2 * 168 + 64 + 8 + 32 + 32 + 16, "std430 layout of ScatterParams");
#endif

VKDML_INTERFACE_END

#endif
