#version 460
#extension GL_GOOGLE_include_directive : require
// Sets words of one slot to a pattern: the zeros a split-K GEMM adds into and
// the scratch that starts clear. A kernel rather than vkCmdFillBuffer: it
// finds the slot's address in the binding table when it runs, so a command
// buffer recorded once follows the table as rebound since (DirectML's
// binding model), where a transfer command keeps the VkBuffer it was
// recorded with.
#include "common.glsl"
#include "interface/fill.h"

VKDML_SPECIALIZATION(FillConstants, VKDML_FILL_CONSTANTS)

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Words {
  uint words[];
};

void main() {
  FillParams p = FillParams(pc.paramsAddress);
  Words words = Words(tensorAddress(p.slot) + p.offset);
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint first = gl_GlobalInvocationID.x;
  const uint count = stridedCount(first, p.words, stride);
  for (uint i = 0; i < count; ++i) words.words[first + i * stride] = p.pattern;
}
