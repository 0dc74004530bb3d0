#version 460
#extension GL_GOOGLE_include_directive : require
// Strided copy of one or more segments: each segment is a rank <= 8 box of
// elements read from one tensor slot with signed strides and written to
// another with unsigned ones. Slice1 is one segment, Join one per input, and
// ScatterND's initial copy of its input one. The dispatch's element space is
// the segments laid end to end.
#include "common.glsl"

layout(local_size_x_id = 0) in;

struct CopySegment {
  uint64_t firstElement;  // where the segment starts in the element space
  uint64_t inputOffset;   // elements
  uint64_t outputOffset;
  int64_t inputStrides[8];
  int64_t outputStrides[8];
  uint sizes[8];  // innermost last; rank dimensions used, aligned to the end
  uint rank;
  uint inputSlot;
  uint outputSlot;
  uint pad;
};

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer CopyParams {
  uint64_t totalElements;
  uint segmentCount;
  uint pad;
  CopySegment segments[];
};

void main() {
  CopyParams p = CopyParams(pc.paramsAddress);
  // Element counts are below 2^32 (DirectML's limit), so the loop runs in 32
  // bits: 64-bit loop counters are many times slower on some drivers
  // (lavapipe) and cost registers everywhere.
  const uint total = uint(p.totalElements);
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < total; i += stride) {
    // The last segment that starts at or before i.
    uint lo = 0, hi = p.segmentCount - 1;
    while (lo < hi) {
      uint mid = (lo + hi + 1) >> 1;
      if (uint(p.segments[mid].firstElement) <= i) lo = mid; else hi = mid - 1;
    }
    uint local = i - uint(p.segments[lo].firstElement);
    INDEX_T inputIndex = INDEX_T(p.segments[lo].inputOffset);
    INDEX_T outputIndex = INDEX_T(p.segments[lo].outputOffset);
    const uint rank = p.segments[lo].rank;
    for (uint d = 8; d-- > 8 - rank;) {
      uint size = p.segments[lo].sizes[d];
      INDEX_T coordinate = INDEX_T(local % size);
      local /= size;
      inputIndex += coordinate * INDEX_T(p.segments[lo].inputStrides[d]);
      outputIndex += coordinate * INDEX_T(p.segments[lo].outputStrides[d]);
    }
    storeElement(tensorAddress(p.segments[lo].outputSlot), outputIndex,
                 loadElement(tensorAddress(p.segments[lo].inputSlot), inputIndex));
    if (i >= total - stride) break;  // i + stride would wrap past 2^32
  }
}
