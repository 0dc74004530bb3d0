#version 460
// The bandwidth limit the benchmark reports next to each operator: a plain
// 16-byte-per-invocation copy through device addresses, grid-stride.
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vectors { uvec4 v[]; };
layout(push_constant) uniform PushConstants {
  uint64_t source;
  uint64_t destination;
  uint count;  // 16-byte vectors, below 2^31
} pc;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) Vectors(pc.destination).v[i] = Vectors(pc.source).v[i];
}
