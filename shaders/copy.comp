#version 460
#extension GL_GOOGLE_include_directive : require
// Strided copy of one or more segments: each segment is a rank <= 8 box of
// elements read from one tensor slot with signed strides and written to
// another with unsigned ones. Slice1 is one segment, Join one per input, and
// ScatterND's initial copy of its input one. The dispatch's element space is
// the segments laid end to end.
#include "common.glsl"
#include "interface/copy.h"

// The dispatch walks rows: a row is one run along a segment's innermost
// dimension, and the segments' rows are laid end to end. Each invocation
// index splits into a lane along a row (the low columnShift bits) and a row,
// so the outer coordinates are decoded once per row, not per element. (The
// split is done here rather than by a 2-D workgroup: lavapipe gives wrong
// results for workgroups narrower than its SIMD width.) Where rows are
// contiguous and 16-byte aligned the host re-expresses them in 16-byte
// elements (ELEMENT_BYTES = 16). A segment may skip rows marked in a bit
// mask (ScatterND: the rows its updates overwrite).
VKDML_SPECIALIZATION(CopyConstants, VKDML_COPY_CONSTANTS)

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer MaskWords {
  uint words[];
};

void main() {
  CopyParams p = CopyParams(pc.paramsAddress);
  // Checked here, not when recorded: the table may be rebound before a
  // recorded command buffer runs again.
  if (p.skipWhenAliased != 0 && tensorAddress(p.segments[0].inputSlot) == tensorAddress(p.segments[0].outputSlot))
    return;
  // Counts are below 2^32 (DirectML's element limit), so the loops run in 32
  // bits: 64-bit loop counters are many times slower on some drivers
  // (lavapipe) and cost registers everywhere.
  const uint rows = uint(p.totalRows);
  const uint rowStride = p.rowStride;
  const uint columnStride = 1u << p.columnShift;
  const uint firstColumn = gl_GlobalInvocationID.x & (columnStride - 1);
  const uint firstRow = gl_GlobalInvocationID.x >> p.columnShift;
  const uint myRows = stridedCount(firstRow, rows, rowStride);
  for (uint r = 0; r < myRows; ++r) {
    const uint row = firstRow + r * rowStride;
    // The last segment that starts at or before this row.
    uint lo = 0, hi = p.segmentCount - 1;
    while (lo < hi) {
      uint mid = (lo + hi + 1) >> 1;
      if (uint(p.segments[mid].firstRow) <= row) lo = mid; else hi = mid - 1;
    }
    uint local = row - uint(p.segments[lo].firstRow);
    // Long rows are cut into pieces (so that no invocation walks too far):
    // the low pieceShift bits of the row index are the piece.
    const uint pieceShift = p.segments[lo].pieceShift;
    const uint piece = local & ((1u << pieceShift) - 1u);
    local >>= pieceShift;
    const uint rowsPerMaskBit = p.segments[lo].rowsPerMaskBit;
    if (rowsPerMaskBit != 0) {  // ScatterND: rows its updates overwrite are not copied
      const uint bit = local / rowsPerMaskBit;
      if ((MaskWords(tensorAddress(p.segments[lo].maskSlot)).words[bit >> 5] & (1u << (bit & 31))) != 0) continue;
    }
    INDEX_T inputIndex = INDEX_T(p.segments[lo].inputOffset);
    INDEX_T outputIndex = INDEX_T(p.segments[lo].outputOffset);
    const uint rank = p.segments[lo].rank;
    for (uint d = 7; d-- > 8 - rank;) {  // the outer dimensions
      uint size = p.segments[lo].sizes[d];
      INDEX_T coordinate = INDEX_T(local % size);
      local /= size;
      inputIndex += coordinate * INDEX_T(p.segments[lo].inputStrides[d]);
      outputIndex += coordinate * INDEX_T(p.segments[lo].outputStrides[d]);
    }
    const uint rowLength = p.segments[lo].sizes[7];
    const uint pieceLength = ((rowLength - 1u) >> pieceShift) + 1u;
    const uint pieceStart = piece * pieceLength;  // <= rowLength - 1 + 2^pieceShift - 1: no wrap
    const uint length = pieceStart < rowLength ? min(pieceLength, rowLength - pieceStart) : 0u;
    const INDEX_T inputStep = INDEX_T(p.segments[lo].inputStrides[7]);
    const INDEX_T outputStep = INDEX_T(p.segments[lo].outputStrides[7]);
    const uint64_t source = tensorAddress(p.segments[lo].inputSlot);
    const uint64_t destination = tensorAddress(p.segments[lo].outputSlot);
    const uint myColumns = stridedCount(firstColumn, length, columnStride);
    for (uint c = 0; c < myColumns; ++c) {
      const uint x = pieceStart + firstColumn + c * columnStride;
      storeElement(destination, outputIndex + INDEX_T(x) * outputStep,
                   loadElement(source, inputIndex + INDEX_T(x) * inputStep));
    }
  }
}
