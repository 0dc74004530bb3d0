// copy.comp (runtime/core/copy.cpp): the strided copy of segments.
#ifndef VKDML_INTERFACE_COPY_H
#define VKDML_INTERFACE_COPY_H
#include "common.h"

VKDML_INTERFACE_BEGIN

#define VKDML_COPY_CONSTANTS(X) X(WORKGROUP_SIZE, 0, workgroupX, 1)

// A segment: a box of elements copied from one slot to another, its
// dimensions aligned to the end of the arrays (innermost last).
struct CopySegment {
  uint64_t firstRow;     // where the segment starts among the dispatch's rows
  uint64_t inputOffset;  // elements
  uint64_t outputOffset;
  int64_t inputStrides[MAX_DIMS];
  int64_t outputStrides[MAX_DIMS];
  uint sizes[MAX_DIMS];  // `rank` dimensions used, the others 1
  uint rank;
  uint inputSlot;
  uint outputSlot;
  uint rowsPerMaskBit;  // 0: no mask; else row r is skipped if bit r / rowsPerMaskBit is set
  uint maskSlot;        // the slot of the mask's words
  uint pieceShift;      // each row is walked as 2^pieceShift pieces, consecutive rows of the dispatch
};

// The dispatch's block: a header, then its segments (the host appends them).
VKDML_PARAMS(CopyParams) {
  uint64_t totalRows;
  uint segmentCount;
  uint columnShift;  // log2 of the invocations along one row
  uint rowStride;    // rows walked at once by the whole grid
  // 1: the dispatch does nothing where segment 0's input and output slots
  // hold one address when it runs (ScatterND in place).
  uint skipWhenAliased;
  VKDML_TRAILING_ARRAY(CopySegment, segments)
};

#ifdef __cplusplus
VKDML_SPECIALIZATION(CopyConstants, VKDML_COPY_CONSTANTS)
static_assert(sizeof(CopySegment) == 208 && offsetof(CopySegment, sizes) == 152, "std430 layout of CopySegment");
static_assert(sizeof(CopyParams) == 24, "std430 layout of CopyParams, whose segments follow at byte 24");
#endif

VKDML_INTERFACE_END

#endif
