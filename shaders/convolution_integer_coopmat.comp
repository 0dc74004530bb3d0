#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
// DML_CONVOLUTION_INTEGER's implicit GEMM on int8 cooperative matrices
// (tensor cores), per group g: Out[m, n] = sum_k (A[m, k] - xz) * (B[n, k] - wz[n])
// as in convolution_integer.comp, whose comments define m, n, k, A and B.
//
// The matrices are s8 x s8 -> s32, the one int8 configuration every device
// with int8 cooperative matrices has. UINT8 operands are flipped to INT8
// (XOR 0x80: u - 128) as they are staged, zero points move by 128 with them,
// and the zero points are folded in at the end with row and column sums of
// the staged (flipped) bytes:
//
//   sum (a - xz')(b - wz') = sum a*b - wz' * sum a - xz' * sum b + Kg * xz' * wz'
//
// Padded positions hold the input zero point (flipped like any input byte);
// positions past M, Ng or Kg hold 0, which adds nothing to products or sums.
// Arithmetic is 32-bit two's complement: the result matches the other paths
// bit for bit. A K too deep for one invocation's loops runs as several
// dispatches over chunks of it, each adding its own (ACCUMULATE), as in
// convolution_integer.comp.
//
// Tiles: 8 warps of 32 lanes (2 along m, 4 along n), or 4 (2 x 2), each FM
// x FN blocks of 16x16 int32, each block one or more device fragments
// (FRAG_M x FRAG_N x FRAG_K); BK = 32 deep, double-buffered in shared
// memory (a step at a time, or in pairs of steps where A comes from
// scratch). The parts,
// each in shaders/coopmat/: tile.glsl (constants, shared memory, the
// invocation's and the tile's place), fragments.glsl (the matrix
// operations), stage.glsl, stage_a.glsl and stage_b.glsl (the operands from
// global memory through registers into shared memory), step.glsl (one K
// step, gathered or packed), multiply.glsl (the multiplies and the K loop),
// epilogue.glsl (zero points, output stores), split.glsl (a split K's
// chunks zeroing their tile's outputs). Their state lives in Private
// variables, which the driver keeps in registers once it has inlined the
// functions.
//
// Defines: WARPS (8, 4 or 16), FN (blocks per warp along n: 1, 2 or 4), FM
// (along m: 4, 3 for tiles of 96 rows, or 2 for 64 on 4 warps), INDEX_BITS
// (32 or 64), FRAG_M, FRAG_N, FRAG_K (the fragment shape, fragments.glsl;
// 16, 16, 32 by default), and one of COOPMAT_NV (GL_NV_cooperative_matrix)
// or COOPMAT_EMULATED (the matrix operations in plain GLSL, to test the rest
// of this kernel on any device).
//
// The geometry and the flags are specialization constants (set by
// runtime/ops/convolution_integer_plan.cpp), not read from ConvParams: the driver
// folds them into the staging code, whose instruction count and registers
// bound this kernel (a 1x1 kernel steps k as c alone, taps that cannot reach
// padding skip the range checks, unneeded zero-point sums vanish).
#if COOPMAT_NV
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require
#extension GL_EXT_spirv_intrinsics : require
#endif
#ifdef VKDML_TIMELINE
#extension GL_ARB_shader_clock : require
#extension GL_EXT_shader_realtime_clock : require
#endif
#include "convolution_integer.glsl"
#ifndef PACKED
#define PACKED 0  // 1: the operands come packed in scratch (convolution_integer_pack.comp)
#endif
#ifndef WARPS
#define WARPS 8  // warps per workgroup: 8 (2 x 4), 4 (2 x 2) or 16 (4 x 4)
#endif
#ifndef PREFETCH
// PACKED: how many K steps ahead the packed chunks are loaded into
// registers: 3 where only B comes packed or A by rows (a short K over many
// tiles), 1 where A comes packed otherwise (the faster of each on the
// H200's 3x3 layer and stem, bench/results/prefetch.md).
#define PREFETCH 1
#endif

#include "coopmat/tile.glsl"
#include "coopmat/timeline.glsl"
#include "coopmat/fragments.glsl"
#include "coopmat/stage.glsl"
#include "coopmat/stage_a.glsl"
#include "coopmat/stage_b.glsl"
#include "coopmat/step.glsl"
#include "coopmat/multiply.glsl"
#include "coopmat/epilogue.glsl"
#include "coopmat/split.glsl"

void main() {
  TIMELINE_START();
  setupInvocation();
  setupStaging();
  TIMELINE_MARK(1);
  // Tiles over the grid, as in convolution_integer.comp.
  const uint group = ROWS_OF_GROUPS ? groupIndex() : gl_WorkGroupID.x;
  const uint groups = ROWS_OF_GROUPS ? groupCount() : gl_NumWorkGroups.x;
  for (uint tile = group; tile < p.tiles;
       tile = ROWS_OF_GROUPS && p.tiles - tile <= groups ? p.tiles : tile + groups) {
    setTile(tile);
    beginSplitTile(tile);
    setLiveFragments();
    beginStaging();
    beginPacked();
    beginSums();
    TIMELINE_MARK(2);
    multiplyTile();
    TIMELINE_MARK(3);
    addSums();
    TIMELINE_MARK(4);
    awaitTileZeroes(tile);
    storeOutput();
    TIMELINE_MARK(14);
    barrier();  // the sums and scratch are read before the next tile resets them
    endSplitTile(tile);
    TIMELINE_TILE_END(tile);
  }
  TIMELINE_WRITE();
}
