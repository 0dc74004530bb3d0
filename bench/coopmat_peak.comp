#version 460
// The int8 cooperative-matrix ceiling the convolution is measured against:
// register-only multiply-adds (A 16x32 x B 32x16 -> C 16x16, s8 -> s32),
// eight independent accumulators per subgroup, no memory traffic in the loop.
// Ops per subgroup: iterations * ACCUMULATORS * 2*16*16*32.
//
// WARP_TILE: instead, the GEMM's warp tile (shaders/coopmat/multiply.glsl):
// 4 A x 4 B fragments into 16 accumulators per iteration (one 32-deep K
// step of a 64 x 64 tile); STEP_BARRIER: and the workgroup barrier that
// ends each of its K steps. What each costs at the GEMM's shape, without
// any memory traffic.
#ifndef WARP_TILE
#define WARP_TILE 0
#endif
#ifndef STEP_BARRIER
#define STEP_BARRIER 0
#endif
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
#if WARP_TILE
  icoopmatNV<8, gl_ScopeSubgroup, 16, 32> as[4];
  icoopmatNV<8, gl_ScopeSubgroup, 32, 16> bs[4];
  [[unroll]] for (int i = 0; i < 4; ++i) {
    as[i] = icoopmatNV<8, gl_ScopeSubgroup, 16, 32>(int8_t(i + int(gl_WorkGroupID.x & 3)));
    bs[i] = icoopmatNV<8, gl_ScopeSubgroup, 32, 16>(int8_t(i + 1));
  }
  ACC_T acc[16];
  [[unroll]] for (int i = 0; i < 16; ++i) acc[i] = ACC_T(i);
  for (uint it = 0; it < pc.iterations; ++it) {
    [[unroll]] for (int i = 0; i < 4; ++i)
      [[unroll]] for (int j = 0; j < 4; ++j) acc[i * 4 + j] = coopMatMulAddNV(as[i], bs[j], acc[i * 4 + j]);
    if (STEP_BARRIER != 0) barrier();
  }
  [[unroll]] for (int i = 1; i < 16; ++i) acc[0] += acc[i];
#else
  ACC_T acc[8];
  [[unroll]] for (int i = 0; i < 8; ++i) acc[i] = ACC_T(i);
  for (uint it = 0; it < pc.iterations; ++it)
    [[unroll]] for (int i = 0; i < 8; ++i) acc[i] = coopMatMulAddNV(a, b, acc[i]);
  [[unroll]] for (int i = 1; i < 8; ++i) acc[0] += acc[i];
#endif
  if (gl_LocalInvocationID.x < 32) coopMatStoreNV(acc[0], Results(pc.results).v, 256 * gl_WorkGroupID.x, 16, false);
}
