#version 460
// The bandwidth limit the benchmark reports next to each operator: a plain
// copy of 16-byte vectors through device addresses, grid-stride. VECTORS
// (default 1) vectors per invocation and step, all loaded before any is
// stored, a stride apart (the --copy-probe variant).
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

#ifndef VECTORS
#define VECTORS 1
#endif

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vectors { uvec4 v[]; };
layout(push_constant) uniform PushConstants {
  uint64_t source;
  uint64_t destination;
  uint count;  // 16-byte vectors; count + VECTORS * the grid below 2^32
} pc;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += VECTORS * stride) {
    uvec4 v[VECTORS];
    [[unroll]] for (uint k = 0; k < VECTORS; ++k)
      if (i + k * stride < pc.count) v[k] = Vectors(pc.source).v[i + k * stride];
    [[unroll]] for (uint k = 0; k < VECTORS; ++k)
      if (i + k * stride < pc.count) Vectors(pc.destination).v[i + k * stride] = v[k];
  }
}
