#version 460
#extension GL_GOOGLE_include_directive : require
// DML_SCATTER_ND's last dispatch: the output already holds the input
// (copy.comp); this writes every update over it. Updates are rows: row j is
// the slice for index tuple j (its k coordinates are read once per row), and
// column s walks that slice (runtime: rowGrid). Defines: ELEMENT_BYTES,
// INDEX_BITS (offset width), INDICES_BYTES (4, 8) and INDICES_SIGNED (0, 1).
#include "common.glsl"
#include "interface/scatter_nd.h"

VKDML_SPECIALIZATION(ScatterNdConstants, VKDML_SCATTER_ND_CONSTANTS)

#if INDICES_BYTES == 4
#define INDICES_U uint
#if INDICES_SIGNED
#define INDICES_T int
#else
#define INDICES_T uint
#endif
#elif INDICES_BYTES == 8
#define INDICES_U uint64_t
#if INDICES_SIGNED
#define INDICES_T int64_t
#else
#define INDICES_T uint64_t
#endif
#else
#error INDICES_BYTES must be 4 or 8
#endif

layout(buffer_reference, std430, buffer_reference_align = INDICES_BYTES) readonly buffer IndexRef {
  INDICES_T value;
};

layout(buffer_reference, std430, buffer_reference_align = 4) buffer MaskWords {
  uint words[];
};

// Offsets in A and B of the element at row-major position `index` of a box.
// The outermost dimension takes what is left, saving a division: a box that
// collapsed to one dimension needs none.
void boxOffsets(ScatterParams p, uint box, uint index, out INDEX_T a, out INDEX_T b) {
  a = 0;
  b = 0;
  const uint outermost = 8 - p.boxes[box].rank;
  for (uint d = 7; d > outermost; --d) {
    const uint size = p.boxes[box].sizes[d];
    const INDEX_T coordinate = INDEX_T(index % size);
    index /= size;
    a += coordinate * INDEX_T(p.boxes[box].stridesA[d]);
    b += coordinate * INDEX_T(p.boxes[box].stridesB[d]);
  }
  a += INDEX_T(index) * INDEX_T(p.boxes[box].stridesA[outermost]);
  b += INDEX_T(index) * INDEX_T(p.boxes[box].stridesB[outermost]);
}

// One coordinate of an index tuple. A negative one (signed types) counts from
// the end (-1 is the last); then it is clamped into [0, size - 1], so that no
// index, however wrong, reaches outside the bound tensors. Unsigned arithmetic
// of the index's own width: exact for every value, the most negative too.
// (The obvious form, int64_t(raw) then clamp(), returned wrong coordinates for
// negative INT32 indices on lavapipe, Mesa 22.3.6; this one needs no widening.)
uint resolveIndex(INDICES_T raw, uint size) {
  const INDICES_U bits = INDICES_U(raw);
#if INDICES_SIGNED
  if (raw < 0) {
    const INDICES_U back = INDICES_U(0) - bits;  // -raw
    return back > size ? 0 : size - uint(back);
  }
#endif
  return uint(min(bits, INDICES_U(size - 1)));
}

void main() {
  ScatterParams p = ScatterParams(pc.paramsAddress);
  const uint64_t indicesAddress = tensorAddress(1);
  const uint64_t updatesAddress = tensorAddress(2);
  const uint64_t outputAddress = tensorAddress(3);
  // Counts are below 2^32, so the loops run in 32 bits (see copy.comp).
  const uint rowStride = gl_NumWorkGroups.y * gl_WorkGroupSize.y;
  const uint columnStride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint j = gl_GlobalInvocationID.y; j < p.tupleCount; j += rowStride) {
    INDEX_T tuple, updatesRow;
    boxOffsets(p, TUPLES, j, tuple, updatesRow);
    INDEX_T outputRow = 0;
    uint target = 0;
    for (uint i = 0; i < p.k; ++i) {
      const INDEX_T at = tuple + INDEX_T(i) * INDEX_T(p.componentStride);
      const INDICES_T raw = IndexRef(indicesAddress + uint64_t(at) * INDICES_BYTES).value;
      const uint coordinate = resolveIndex(raw, p.inputSizes[i]);
      outputRow += INDEX_T(coordinate) * INDEX_T(p.outputStrides[i]);
      target += coordinate * p.targetStrides[i];
    }
    if (p.maskSlot != 0 && gl_GlobalInvocationID.x == 0) {
      MaskWords mask = MaskWords(tensorAddress(p.maskSlot));
      if (MODE == MODE_MARK)
        atomicOr(mask.words[target >> 5], 1u << (target & 31));
      else  // every tuple whose bit is in the word stores 0: no atomics needed
        mask.words[target >> 5] = 0;
    }
    if (MODE == MODE_MARK) {
      if (j >= p.tupleCount - rowStride) break;
      continue;
    }
    for (uint s = gl_GlobalInvocationID.x; s < p.sliceElements; s += columnStride) {
      INDEX_T fromUpdates, toOutput;
      boxOffsets(p, SLICE, s, fromUpdates, toOutput);
      storeElement(outputAddress, outputRow + toOutput, loadElement(updatesAddress, updatesRow + fromUpdates));
      if (s >= p.sliceElements - columnStride) break;  // s + columnStride would wrap past 2^32
    }
    if (j >= p.tupleCount - rowStride) break;
  }
}
