#version 460
// The int8 cooperative-matrix ceiling the convolution is measured against:
// register-only multiply-adds (A 16x32 x B 32x16 -> C 16x16, s8 -> s32),
// eight independent accumulators per subgroup, no memory traffic in the loop.
// Ops per subgroup: iterations * ACCUMULATORS * 2*16*16*32.
//
// WARP_TILE: instead, the GEMM's warp tile (shaders/coopmat/multiply.glsl):
// 4 A x FN B fragments into 4 * FN accumulators per iteration (one 32-deep K
// step of a 64 x 16 FN tile: FN = 4 on the 128 x 256 tiles, 2 on 128 x 128);
// STEP_BARRIER: and the workgroup barrier that ends each of its K steps.
// SHARED_LOADS: the fragments loaded from shared memory each step, where and
// as the GEMM loads them (rows of 32 bytes padded to 48, two buffers taking
// steps in turn); SHARED_STORES: and each invocation storing its share of
// the next step's A and B rows into the other buffer, from registers. What
// each costs at the GEMM's shapes, without global memory traffic.
// GLOBAL_LOADS (1 or 2): and those rows loaded from global memory first, 16
// bytes an invocation and chunk as the packed GEMM loads them, 1 or 2 steps
// ahead of their store, from 512 KiB per workgroup class in the results
// buffer's second 4 MiB (read again and again: from L2, as the GEMM's
// shared rows are). PAIRED (with GLOBAL_LOADS = 1): two steps a shared row
// and a barrier per pair, the next pair loaded before this one's multiplies
// (the 128 x 128 tiles' K_PAIRED_ROWS form). GLOBAL_LOADS 3: the next
// step's rows copied from global memory straight into the other buffer,
// each load's value stored at once (no registers held across the
// multiplies), before this step's multiplies; 4: the same copy after them.
// If the driver turned such a copy into an asynchronous one (Ampere's
// LDGSTS), 3 would overlap it with the multiplies and run well ahead of 4.
#ifndef WARP_TILE
#define WARP_TILE 0
#endif
#ifndef FN
#define FN 4
#endif
#ifndef STEP_BARRIER
#define STEP_BARRIER 0
#endif
#ifndef SHARED_LOADS
#define SHARED_LOADS 0
#endif
#ifndef SHARED_STORES
#define SHARED_STORES 0
#endif
#ifndef GLOBAL_LOADS
#define GLOBAL_LOADS 0
#endif
#ifndef PAIRED
#define PAIRED 0
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
#if SHARED_LOADS || SHARED_STORES
const uint BM = 128, BN = FN * 64, ROW4 = PAIRED != 0 ? 5 : 3, STAGE4 = (BM + BN) * ROW4;
shared uvec4 tiles[2 * STAGE4];
#endif
#if GLOBAL_LOADS
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Chunks { uvec4 v[]; };
const uint B_CHUNKS = BN * 2 / 256, STEP_CHUNKS = 256 * (1 + B_CHUNKS);
struct Step {
  uvec4 a, b[B_CHUNKS];
};
Step loadStep(uint s) {
  const uint t = gl_LocalInvocationID.x, first = ((gl_WorkGroupID.x % 8) * 64 + s % 64) * STEP_CHUNKS;
  Chunks chunks = Chunks(pc.results + (uint64_t(4) << 20));
  Step step;
  step.a = chunks.v[first + t];
  [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r) step.b[r] = chunks.v[first + 256 * (1 + r) + t];
  return step;
}
void copyStep(uint s, uint at) {
  const uint t = gl_LocalInvocationID.x, first = ((gl_WorkGroupID.x % 8) * 64 + s % 64) * STEP_CHUNKS;
  Chunks chunks = Chunks(pc.results + (uint64_t(4) << 20));
  tiles[at + (t / 2) * ROW4 + t % 2] = chunks.v[first + t];
  [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r)
    tiles[at + (BM + (t + r * 256) / 2) * ROW4 + t % 2] = chunks.v[first + 256 * (1 + r) + t];
}
void storeStep(Step step, uint at) {
  const uint t = gl_LocalInvocationID.x;
  tiles[at + (t / 2) * ROW4 + t % 2] = step.a;
  [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r) tiles[at + (BM + (t + r * 256) / 2) * ROW4 + t % 2] = step.b[r];
}
#endif
// One K step's multiplies of the warp tile, its fragments from shared memory
// at uvec4 `at` where SHARED_LOADS.
#if SHARED_LOADS
#define LOAD_B_FRAGMENTS(at)                                                                  \
  [[unroll]] for (uint j = 0; j < FN; ++j)                                                   \
      coopMatLoadNV(bs[j], tiles, (at) + (BM + (warpN * FN + j) * 16) * ROW4, ROW4, true);
#define LOAD_A_FRAGMENT(at, i) coopMatLoadNV(as[i], tiles, (at) + ((warpM * 4 + i) * 16) * ROW4, ROW4, false);
#else
#define LOAD_B_FRAGMENTS(at)
#define LOAD_A_FRAGMENT(at, i)
#endif
#define MULTIPLY(at)                                                                                \
  {                                                                                                 \
    LOAD_B_FRAGMENTS(at)                                                                            \
    [[unroll]] for (int i = 0; i < 4; ++i) {                                                        \
      LOAD_A_FRAGMENT(at, i)                                                                        \
      [[unroll]] for (int j = 0; j < FN; ++j) acc[i * FN + j] = coopMatMulAddNV(as[i], bs[j], acc[i * FN + j]); \
    }                                                                                               \
  }
void main() {
  icoopmatNV<8, gl_ScopeSubgroup, 16, 32> a = icoopmatNV<8, gl_ScopeSubgroup, 16, 32>(int8_t(gl_WorkGroupID.x & 3));
  icoopmatNV<8, gl_ScopeSubgroup, 32, 16> b = icoopmatNV<8, gl_ScopeSubgroup, 32, 16>(int8_t(1));
#if WARP_TILE
  icoopmatNV<8, gl_ScopeSubgroup, 16, 32> as[4];
  icoopmatNV<8, gl_ScopeSubgroup, 32, 16> bs[FN];
  [[unroll]] for (int i = 0; i < 4; ++i) {
    as[i] = icoopmatNV<8, gl_ScopeSubgroup, 16, 32>(int8_t(i + int(gl_WorkGroupID.x & 3)));
#if FN == 4
    bs[i] = icoopmatNV<8, gl_ScopeSubgroup, 32, 16>(int8_t(i + 1));
#endif
  }
#if FN != 4
  [[unroll]] for (int j = 0; j < FN; ++j) bs[j] = icoopmatNV<8, gl_ScopeSubgroup, 32, 16>(int8_t(j + 1));
#endif
  ACC_T acc[4 * FN];
  [[unroll]] for (int i = 0; i < 4 * FN; ++i) acc[i] = ACC_T(i);
#if SHARED_LOADS || SHARED_STORES
  const uint t = gl_LocalInvocationID.x, warp = t / 32, warpM = warp % 2, warpN = warp / 2;
  [[unroll]] for (uint r = t; r < 2 * STAGE4; r += 256) tiles[r] = uvec4(r);
  barrier();
#endif
#if PAIRED
  Step p0 = loadStep(0), p1 = loadStep(1);
  storeStep(p0, 0);
  storeStep(p1, 2);
  barrier();
  for (uint it = 0; it < pc.iterations; it += 2) {
    const uint at = ((it / 2) & 1) * STAGE4, other = STAGE4 - at;
    p0 = loadStep(it + 2);
    p1 = loadStep(it + 3);
    MULTIPLY(at);
    MULTIPLY(at + 2);
    storeStep(p0, other);
    storeStep(p1, other + 2);
    barrier();
  }
#elif GLOBAL_LOADS == 2
  // Even steps in s0, odd ones in s1, the loop unrolled by two (the GEMM's
  // TWO_AHEAD form): each step's loads have two steps of multiplies to land in.
  Step s0 = loadStep(0), s1 = loadStep(1);
  storeStep(s0, 0);
  barrier();
  for (uint it = 0; it < pc.iterations; it += 2) {
    s0 = loadStep(it + 2);
    MULTIPLY(0);
    storeStep(s1, STAGE4);
    barrier();
    s1 = loadStep(it + 3);
    MULTIPLY(STAGE4);
    storeStep(s0, 0);
    barrier();
  }
#elif GLOBAL_LOADS >= 3
  copyStep(0, 0);
  barrier();
  for (uint it = 0; it < pc.iterations; ++it) {
    const uint at = (it & 1) * STAGE4;
    if (GLOBAL_LOADS == 3) copyStep(it + 1, STAGE4 - at);
    MULTIPLY(at);
    if (GLOBAL_LOADS == 4) copyStep(it + 1, STAGE4 - at);
    barrier();
  }
#else
#if GLOBAL_LOADS == 1
  Step next = loadStep(0);
  storeStep(next, 0);
  barrier();
#endif
  for (uint it = 0; it < pc.iterations; ++it) {
#if GLOBAL_LOADS == 1
    next = loadStep(it + 1);  // step it + 1, stored after this step's multiplies
#endif
    MULTIPLY((it & 1) * STAGE4);
#if GLOBAL_LOADS == 1
    storeStep(next, ((it + 1) & 1) * STAGE4);
#elif SHARED_STORES
    const uint next = ((it + 1) & 1) * STAGE4;
    tiles[next + (t / 2) * ROW4 + t % 2] = uvec4(it, t, 1, 2);
    [[unroll]] for (uint r = 0; r < BN * 2 / 256; ++r) tiles[next + (BM + (t + r * 256) / 2) * ROW4 + t % 2] = uvec4(t, it, 3, 4);
#endif
    if (STEP_BARRIER != 0) barrier();
  }
#endif
  [[unroll]] for (int i = 1; i < 4 * FN; ++i) acc[0] += acc[i];
#else
  ACC_T acc[8];
  [[unroll]] for (int i = 0; i < 8; ++i) acc[i] = ACC_T(i);
  for (uint it = 0; it < pc.iterations; ++it)
    [[unroll]] for (int i = 0; i < 8; ++i) acc[i] = coopMatMulAddNV(a, b, acc[i]);
  [[unroll]] for (int i = 1; i < 8; ++i) acc[0] += acc[i];
#endif
  if (gl_LocalInvocationID.x < 32) coopMatStoreNV(acc[0], Results(pc.results).v, 256 * gl_WorkGroupID.x, 16, false);
}
