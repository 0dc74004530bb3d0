#version 460
#extension GL_GOOGLE_include_directive : require
// Sets words of one slot to a pattern: the zeros a split-K GEMM adds into and
// the scratch that starts clear. A kernel rather than vkCmdFillBuffer: it
// finds the slot's address in the binding table when it runs, so a command
// buffer recorded once follows the table as rebound since (DirectML's
// binding model), where a transfer command keeps the VkBuffer it was
// recorded with. 16 bytes a store where the range starts 16-byte aligned
// (known only when it runs), else a word.
#include "common.glsl"
#include "interface/fill.h"

VKDML_SPECIALIZATION(FillConstants, VKDML_FILL_CONSTANTS)

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Words {
  uint words[];
};
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Quads {
  uvec4 quads[];
};

void main() {
  FillParams p = FillParams(pc.paramsAddress);
  const uint64_t base = tensorAddress(p.slot) + p.offset;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint first = gl_GlobalInvocationID.x;
  const bool aligned = (base & 15) == 0;
  // Aligned: the whole quads, then the last words (fewer than 4) by the
  // first invocations; otherwise every word.
  const uint quads = aligned ? p.words >> 2 : 0u;
  const uint quadCount = stridedCount(first, quads, stride);
  for (uint i = 0; i < quadCount; ++i) Quads(base).quads[first + i * stride] = uvec4(p.pattern);
  const uint from = quads << 2;
  const uint wordCount = stridedCount(first, p.words - from, stride);
  for (uint i = 0; i < wordCount; ++i) Words(base).words[from + first + i * stride] = p.pattern;
}
