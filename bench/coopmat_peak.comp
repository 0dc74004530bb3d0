#version 460
// The int8 cooperative-matrix ceiling the convolution is measured against:
// register-only multiply-adds (A 16x32 x B 32x16 -> C 16x16, s8 -> s32),
// eight independent accumulators per subgroup, no memory traffic in the loop.
// Ops per subgroup: iterations * 8 * 2*16*16*32.
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Results { int v[]; };
layout(push_constant) uniform PushConstants {
  uint64_t results;  // one 16x16 int32 matrix per workgroup, so nothing is optimized away
  uint iterations;
} pc;

#define ACC_T icoopmatNV<32, gl_ScopeSubgroup, 16, 16>
void main() {
  icoopmatNV<8, gl_ScopeSubgroup, 16, 32> a = icoopmatNV<8, gl_ScopeSubgroup, 16, 32>(int8_t(gl_WorkGroupID.x & 3));
  icoopmatNV<8, gl_ScopeSubgroup, 32, 16> b = icoopmatNV<8, gl_ScopeSubgroup, 32, 16>(int8_t(1));
  ACC_T acc[8];
  [[unroll]] for (int i = 0; i < 8; ++i) acc[i] = ACC_T(i);
  for (uint it = 0; it < pc.iterations; ++it)
    [[unroll]] for (int i = 0; i < 8; ++i) acc[i] = coopMatMulAddNV(a, b, acc[i]);
  [[unroll]] for (int i = 1; i < 8; ++i) acc[0] += acc[i];
  if (gl_LocalInvocationID.x < 32) coopMatStoreNV(acc[0], Results(pc.results).v, 256 * gl_WorkGroupID.x, 16, false);
}
