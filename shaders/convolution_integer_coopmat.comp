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
// Tiles: 8 warps of 32 lanes (2 along m, 4 along n), each FM x FN fragments
// of 16x16 int32; BK = 32 deep, double-buffered in shared memory: while the
// warps multiply one buffer, the next K step is loaded into registers and
// then stored into the other, one barrier per step. A is staged in quads of
// 4 rows x 4 k: where 4 consecutive m are 4 consecutive input bytes
// (INPUT_ROWS_CONTIGUOUS) a quad is aligned word loads, funnel shifts and
// a 4x4 byte transpose, otherwise 16 byte gathers. Warp w stages k quad w
// of all 32 row quads, lane l row quad l: each load instruction reads one
// tap of 128 consecutive m, a few cache lines (k quads across the lanes
// read 8 taps, 8 lines); a word that straddles into the next quad's is
// taken from that lane by a shuffle. The quads' rows are interleaved in the
// tile (quadTileRow) so that their shared stores do not all hit the same
// banks. B rows are contiguous in k for packed filters: one 16-byte load
// per 16 k.
//
// Defines: FN (fragments per warp along n: 2 or 4), INDEX_BITS (32 or 64),
// and one of COOPMAT_NV (GL_NV_cooperative_matrix) or COOPMAT_EMULATED (the
// matrix operations in plain GLSL, to test the rest of this kernel on any
// device).
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
#include "convolution_integer.glsl"
#ifndef PACKED
#define PACKED 0  // 1: the operands come packed in scratch (convolution_integer_pack.comp)
#endif
#ifndef PREFETCH
// PACKED: how many K steps ahead the packed chunks are loaded into
// registers. 3 where only B comes packed: measured 12% faster on the H200's
// 3x3 layer than 1, which stays faster where A comes packed too.
#define PREFETCH 1
#endif

// The tile (interface/convolution_integer.h).
const uint WARPS_M = COOPMAT_WARPS_M, WARPS_N = COOPMAT_WARPS_N;
const uint FM = COOPMAT_FM;
const uint WG = COOPMAT_WORKGROUP;
VKDML_SPECIALIZATION(ConvolutionIntegerCoopmatConstants, VKDML_CONVOLUTION_INTEGER_COOPMAT_CONSTANTS)
layout(local_size_x = WG) in;  // the host passes WG as WORKGROUP_SIZE: the tiling assumes it
const uint KHW = KH * KW;
const bool HAS_XZ = (FLAGS & HAS_INPUT_ZERO_POINT) != 0;
const bool HAS_WZ = (FLAGS & HAS_FILTER_ZERO_POINT) != 0;
const bool INPUT_SIGNED = (FLAGS & INPUT_SIGNED_FLAG) != 0;
const bool FILTER_SIGNED = (FLAGS & FILTER_SIGNED_FLAG) != 0;
const bool ROWS_CONTIGUOUS = (FLAGS & INPUT_ROWS_CONTIGUOUS) != 0;
const bool Y_IN_RANGE = (FLAGS & TAPS_Y_IN_RANGE) != 0;
const bool X_IN_RANGE = (FLAGS & TAPS_X_IN_RANGE) != 0;
const bool K_CONTIGUOUS = (FLAGS & FILTER_K_CONTIGUOUS) != 0;
const bool WHOLE_STEPS = (FLAGS & K_WHOLE_STEPS) != 0;
const bool OUTPUT_QUADS = (FLAGS & OUTPUT_M_QUADS) != 0;
const bool TWO_STEPS = (FLAGS & K_TWO_STEPS) != 0;
const bool ACCUMULATE_OUTPUT = (FLAGS & ACCUMULATE) != 0;  // a later chunk of K: add to the output
const bool CHUNKED = (FLAGS & K_CHUNKED) != 0;             // a chunk of K, not all of it
const bool ROWS_OF_GROUPS = (FLAGS & GRID_ROWS) != 0;
// XOR masks that flip UINT8 bytes to INT8.
const uint INPUT_FLIP = INPUT_SIGNED ? 0u : 0x80808080u;
const uint FILTER_FLIP = FILTER_SIGNED ? 0u : 0x80808080u;
// The row sums only matter where the flipped filter zero point can be
// nonzero, the column sums where the flipped input zero point can.
const bool NEED_ROW_SUMS = !FILTER_SIGNED || HAS_WZ;
const bool NEED_COL_SUMS = !INPUT_SIGNED || HAS_XZ;
const uint BM = COOPMAT_BM;         // tile rows (output pixels)
const uint BN = FN * 16 * WARPS_N;  // tile columns (output channels of the group)
const uint BK = COOPMAT_BK;         // tile depth: one fragment K
const uint ROW4 = COOPMAT_ROW4;
const uint STAGE4 = (BM + BN) * ROW4;  // one buffer: A rows, then B rows
// Gathered A (not packed): row j of row quad q (m 4q + j) goes to tile row
// 32 * (q / 8) + 8 * j + q % 8. Each 32 tile rows still hold 32 consecutive
// m (the epilogue's stores stay whole lines), and the 32 lanes storing row j
// of their quads hit 8 distinct bank groups.
const bool ROWS_INTERLEAVED = !(PACKED != 0 && PACK_A);
uint quadTileRow(uint quad, uint j) { return ROWS_INTERLEAVED ? 32 * (quad / 8) + 8 * j + quad % 8 : 4 * quad + j; }
// The m (from m0) of a tile row.
uint tileRowM(uint row) { return ROWS_INTERLEAVED ? (row & ~31u) + 4 * (row % 8) + (row % 32) / 8 : row; }
// The epilogue's per-warp scratch (interface/convolution_integer.h).
const uint SCRATCH_COLUMN4 = COOPMAT_SCRATCH_COLUMN4;
const uint SCRATCH_WARP4 = 16 * SCRATCH_COLUMN4;
const uint SCRATCH4 = COOPMAT_SCRATCH4;
shared uvec4 tiles[VKDML_COOPMAT_TILES4(BN)];  // max(2 * STAGE4, SCRATCH4)
shared int rowSums[BM];  // sum over k of each staged A row (flipped bytes)
shared int colSums[BN];  // likewise for B rows
shared int colZeroPoints[BN];  // the filter zero point of each column, flipped

#if COOPMAT_NV
#define A_T icoopmatNV<8, gl_ScopeSubgroup, 16, 32>
#define B_T icoopmatNV<8, gl_ScopeSubgroup, 32, 16>
#define ACC_T icoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define ACC_ZERO ACC_T(0)
#define LOAD_A(f, element, stride) coopMatLoadNV(f, tiles, element, stride, false)
#define LOAD_B(f, element, stride) coopMatLoadNV(f, tiles, element, stride, true)
#define MMA(a, b, c) coopMatMulAddNV(a, b, c)
#define STORE_ACC(f, element, stride) coopMatStoreNV(f, tiles, element, stride, true)
#define FRAGMENT_LOOP [[unroll]]  // a dynamic index would move the accumulators to local memory
#define FRAGMENTS_M FM            // the fragments MULTIPLY takes, all
#define FRAGMENTS_N FN
#define WARP_BARRIER() subgroupBarrier()  // a warp is a subgroup (32 lanes, checked by the host)
#elif COOPMAT_EMULATED
// A or B "fragment": where it lies in `tiles` (read only before the next
// barrier, as the real fragments are). An accumulator: lane l of a 32-lane
// warp holds elements 8l .. 8l+7 of the 16x16 matrix, row-major.
struct Fragment {
  uint element, stride;  // in uvec4, as coopMatLoad takes them
};
struct Accumulator {
  int v[8];
};
#define A_T Fragment
#define B_T Fragment
#define ACC_T Accumulator
#define ACC_ZERO Accumulator(int[8](0, 0, 0, 0, 0, 0, 0, 0))
#define LOAD_A(f, e, s) f = Fragment(e, s)
#define LOAD_B(f, e, s) f = Fragment(e, s)
#define MMA(a, b, c) emulatedMulAdd(a, b, c)
#define STORE_ACC(f, e, s) emulatedStore(f, e, s)
// The emulated multiplies are plain arrays: their loops stay loops (unrolled,
// they take lavapipe minutes to compile where the step loop is unrolled too).
#define FRAGMENT_LOOP [[dont_unroll]]
#define FRAGMENTS_M liveFragmentsM  // those not wholly past M or Ng (main)
#define FRAGMENTS_N liveFragmentsN
// An emulated warp's 32 invocations can span several subgroups (lavapipe: 8 lanes).
#define WARP_BARRIER() barrier()
// The sum of the products of the 4 signed bytes of x and y.
int signedDot4(uint x, uint y) {
  int sum = 0;
  [[unroll]] for (uint i = 0; i < 4; ++i)
    sum += bitfieldExtract(int(x), int(8 * i), 8) * bitfieldExtract(int(y), int(8 * i), 8);
  return sum;
}
// Lane l's elements 8l .. 8l+7 are one row of A times 8 columns of B: its
// row's 32 bytes are read once. The loops are unrolled (no loop passes).
Accumulator emulatedMulAdd(Fragment a, Fragment b, Accumulator c) {
  const uint lane = gl_LocalInvocationID.x % 32;
  const uint rowAt = a.element + (lane / 2) * a.stride;  // A row-major (rows of k), B column-major (columns of k)
  const uvec4 row0 = tiles[rowAt], row1 = tiles[rowAt + 1];
  [[unroll]] for (uint e = 0; e < 8; ++e) {
    const uint columnAt = b.element + (8 * (lane % 2) + e) * b.stride;
    const uvec4 column0 = tiles[columnAt], column1 = tiles[columnAt + 1];
    int sum = 0;
    [[unroll]] for (uint w = 0; w < 4; ++w) sum += signedDot4(row0[w], column0[w]) + signedDot4(row1[w], column1[w]);
    c.v[e] += sum;
  }
  return c;
}
void emulatedStore(Accumulator c, uint element, uint stride) {  // column-major int32
  const uint lane = gl_LocalInvocationID.x % 32;
  [[unroll]] for (uint e = 0; e < 8; ++e) {
    const uint row = (8 * lane + e) / 16, column = (8 * lane + e) % 16;
    const uint word = 4 * (element + column * stride) + row;
    tiles[word / 4][word % 4] = uint(c.v[e]);
  }
}
#else
#error define COOPMAT_NV or COOPMAT_EMULATED
#endif

// The 4x4 byte transpose that turns 4 k-rows of 4 m (byte j of word i is
// (k i, m j)) into 4 m-rows of 4 k, in two rounds of 8- then 16-bit interleaves.
uvec4 transposeBytes(uvec4 w) {
  const uint lo = 0x00FF00FFu, hi = 0xFF00FF00u;
  const uint t0 = (w.x & lo) | ((w.y & lo) << 8);  // (k0,m0) (k1,m0) (k0,m2) (k1,m2)
  const uint t1 = ((w.x & hi) >> 8) | (w.y & hi);  // (k0,m1) (k1,m1) (k0,m3) (k1,m3)
  const uint t2 = (w.z & lo) | ((w.w & lo) << 8);  // likewise for k2, k3
  const uint t3 = ((w.z & hi) >> 8) | (w.w & hi);
  return uvec4((t0 & 0xFFFFu) | (t2 << 16), (t1 & 0xFFFFu) | (t3 << 16), (t0 >> 16) | (t2 & 0xFFFF0000u),
               (t1 >> 16) | (t3 & 0xFFFF0000u));
}

// The sum of the 4 signed bytes of a word: one packed dot product with
// (1,1,1,1) where the device has them (the tensor-core variants require it).
#if COOPMAT_NV
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot(uint a, uint b, spirv_literal int format);
int signedByteSum(uint word) { return sdot(word, 0x01010101u, 0); }
#else
int signedByteSum(uint word) { return byteSum(word, true); }
#endif
int signedByteSum(uvec4 v) { return signedByteSum(v.x) + signedByteSum(v.y) + signedByteSum(v.z) + signedByteSum(v.w); }

// Steps (c, ky, kx) to the next k; a dimension of size 1 stays 0 without a
// compare (a 1x1 kernel steps c alone).
void stepK(inout uint c, inout uint ky, inout uint kx) {
  if (KW > 1 && kx + 1 < KW) {
    ++kx;
    return;
  }
  kx = 0;
  if (KH > 1 && ky + 1 < KH) {
    ++ky;
    return;
  }
  ky = 0;
  ++c;
}

// The registers that LOAD_STEP fills and STORE_STEP reads (see main).
struct StagedStep {
  uvec4 aLow, aHigh, aShift;
  uint aCount;
  uvec4 bRaw0, bRaw1;
  uint bCount0, bCount1;
};

// A specialization constant widened in code: as a constant expression the
// 64-bit conversion would need SPIR-V 1.4.
COORD_T coord(uint v) { return COORD_T(v); }

void main() {
  ConvParams p = ConvParams(pc.paramsAddress);
  const uint t = gl_LocalInvocationID.x;
  const uint lane = t % 32, warp = t / 32;
  const uint warpM = warp % WARPS_M, warpN = warp / WARPS_M;
  const uint64_t inputAddress = tensorAddress(0);
  const uint64_t inputZeroPointAddress = tensorAddress(1);
  const uint64_t filterAddress = tensorAddress(2);
  const uint64_t filterZeroPointAddress = tensorAddress(3);
  const uint64_t outputAddress = tensorAddress(4);

  // Kg: the length of this dispatch's chunk of K, all of it unless CHUNKED:
  // k in [kBegin, kBegin + Kg) (kBegin a multiple of BK); every k below is
  // counted from kBegin.
  const uint M = p.M, Ng = p.groupOutputChannels;
  const uint Kg = CHUNKED ? p.kLength : p.groupK, kBegin = CHUNKED ? p.kBegin : 0u;

  // The input zero point: its raw byte (the value of padded positions) and
  // its value in the flipped domain.
  const uint xzBits = HAS_XZ ? loadByte(inputZeroPointAddress) : 0u;
  const int xzFlipped = bitfieldExtract(int(xzBits ^ (INPUT_FLIP & 0xFFu)), 0, 8);
  const uint xzWord = xzBits * 0x01010101u;

  const INDEX_T inS0 = INDEX_T(p.inputStrides[0]), inS1 = INDEX_T(p.inputStrides[1]);
  const INDEX_T inS2 = INDEX_T(p.inputStrides[2]), inS3 = INDEX_T(p.inputStrides[3]);
  const INDEX_T fS0 = INDEX_T(p.filterStrides[0]), fS1 = INDEX_T(p.filterStrides[1]);
  const INDEX_T fS2 = INDEX_T(p.filterStrides[2]), fS3 = INDEX_T(p.filterStrides[3]);
  const uint kTiles = Kg / BK + uint(Kg % BK != 0);
  // BK as a step of (c, ky, kx).
  const uint STEP_C = BK / KHW, STEP_KY = (BK % KHW) / KW, STEP_KX = BK % KW;

  // This invocation's share of the staging, the same every K step (so its
  // row and column sums accumulate in registers): the A quad of rows
  // 4*aQuadRow.. and k 4*aQuadK.. (BM/4 x BK/4 = WG quads), and B chunks of
  // 16 k: row bChunk/2, half bChunk%2 (= t%2), for bChunk = t, t + WG, ...
  const uint aQuadK = warp, aQuadRow = lane;
  // The shuffles in LOAD_A_K read the next lane: only where it is invocation t + 1.
  const uint nextT = subgroupShuffleDown(t, 1);  // in uniform control flow
  const bool nextIsNeighbor = lane + 1 < 32 && gl_SubgroupInvocationID + 1 < gl_SubgroupSize && nextT == t + 1;
  const uint B_CHUNKS = BN * 2 / WG;  // 1 or 2

  // Tiles over the grid, as in convolution_integer.comp.
  const uint group = ROWS_OF_GROUPS ? groupIndex() : gl_WorkGroupID.x;
  const uint groups = ROWS_OF_GROUPS ? groupCount() : gl_NumWorkGroups.x;
  for (uint tile = group; tile < p.tiles;
       tile = ROWS_OF_GROUPS && p.tiles - tile <= groups ? p.tiles : tile + groups) {
    const uint mTile = tile % p.mTiles;
    const uint nTile = (tile / p.mTiles) % p.nTiles;
    const uint g = tile / p.mTiles / p.nTiles;
    const uint m0 = mTile * BM, n0 = nTile * BN;
#if COOPMAT_EMULATED
    // Fragments wholly past M or Ng only add to results that are never
    // stored: the emulation skips them (their first tile row holds their
    // smallest m, see tileRowM), most of the work of a narrow GEMM. The
    // live ones come first, so their counts bound the fragment loops (a
    // branch around the work would not do: lavapipe runs branches that no
    // lane takes, masked).
    uint liveFragmentsM = 0, liveFragmentsN = 0;
    [[unroll]] for (uint i = 0; i < FM; ++i)
      if (tileRowM(16 * (warpM * FM + i)) < M - m0) liveFragmentsM = i + 1;
    [[unroll]] for (uint j = 0; j < FN; ++j)
      if ((warpN * FN + j) * 16 < Ng - n0) liveFragmentsN = j + 1;
#endif

    // Where the quad's rows take their taps (row j: output pixel m0 +
    // 4*aQuadRow + j): the input offset of tap (0, 0, 0) and, for the range
    // checks that remain, its coordinates. Contiguous rows need row 0 only:
    // the 4 pixels share batch and oy, and ox is a multiple of 4 (OW % 4 ==
    // 0), so x stays word-aligned and each tap's byte shift is a constant
    // of kx. Offsets wrap (padding) but are only used in range.
    bool rowValid[4];
    COORD_T iy0[4], ix0[4];
    INDEX_T pixelBase[4];
    bool highFromNext = false;  // contiguous rows: the next lane's quad continues this one's output row
    [[unroll]] for (uint j = 0; j < 4; ++j) {  // contiguous rows use j = 0 alone
      const uint row = 4 * aQuadRow + j, m = m0 + row;
      rowValid[j] = row < M - m0;
      const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
      if (j == 0) highFromNext = nextIsNeighbor && ox + 4 < p.outputW;
      iy0[j] = COORD_T(oy) * coord(STRIDE_Y) - coord(PAD_Y);
      // Contiguous rows: the x padding goes into each tap's shift instead.
      ix0[j] = COORD_T(ox) * coord(STRIDE_X) - coord(ROWS_CONTIGUOUS ? 0u : PAD_X);
      pixelBase[j] = INDEX_T(batch) * inS0 + INDEX_T(g * p.groupChannels) * inS1 + INDEX_T(iy0[j]) * inS2 +
                     INDEX_T(ix0[j]) * inS3;
    }
    uint rowMask = 0;  // the bytes of rows below M (gathered rows)
    if (!ROWS_CONTIGUOUS)
      [[unroll]] for (uint j = 0; j < 4; ++j)
        if (rowValid[j]) rowMask |= 0xFFu << (8 * j);
    // Contiguous rows lie all 4 below M or none (M % 4 == 0): a quad past M
    // stages no k (rowMask's role for gathered rows).
    const uint quadK = !ROWS_CONTIGUOUS || rowValid[0] ? 4u : 0u;
    int rowPartial[4] = int[4](0, 0, 0, 0);
    int colPartial0 = 0, colPartial1 = 0;

    // Where this invocation's B chunks start: filter row n0 + chunk/2, at
    // k 16*(t%2) (+ BK per step); 16-byte loads where the chunk lies
    // contiguous and aligned.
    uint bRowCount[2];  // 16, or 0 past Ng
    INDEX_T bRowOffset[2];
    bool bAligned[2];
    [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r) {
      const uint bRow = (t + r * WG) / 2;
      bRowCount[r] = bRow < Ng - n0 ? 16u : 0u;
      bRowOffset[r] = INDEX_T(g * Ng + n0 + bRow) * fS0;
      bAligned[r] = K_CONTIGUOUS && ((uint(filterAddress) + uint(bRowOffset[r])) & 15) == 0;
    }

    if (NEED_ROW_SUMS) {
      if (t < BM) rowSums[t] = 0;
      if (t < BN) {
        // The column's filter zero point, flipped like the filter (read once per tile).
        uint wz = 0;
        if (HAS_WZ && t < Ng - n0)
          wz = loadByte(filterZeroPointAddress + uint64_t(g * Ng + n0 + t) * p.filterZeroPointStride);
        colZeroPoints[t] = bitfieldExtract(int(wz ^ (FILTER_FLIP & 0xFFu)), 0, 8);
      }
    }
    if (NEED_COL_SUMS && t < BN) colSums[t] = 0;

    // The global loads of one K step go to registers (LOAD_STEP) and are
    // only used after the multiplies of the previous step (STORE_STEP), so
    // their latency overlaps the tensor-core work. Per k i of the A quad:
    // for contiguous rows, the two aligned words around its 4 bytes
    // (aLow[i], aHigh[i]) and the byte shift (aShift[i]); otherwise the 4
    // gathered bytes as one word (aLow[i], shift 0). Rows of whole words
    // (W % 4 == 0, rows 4-byte aligned) make every word wholly inside or
    // outside the row: outside, it is padding. Every index into these
    // registers is a literal (the macros below are expanded per index): a
    // dynamic index would move them to local memory.
    uvec4 aLow, aHigh, aShift;
    uint aCount;  // k of the quad below Kg (0: rows past M, contiguous)
    // (c, ky, kx) of the quad's first k in the step LOAD_STEP loads next.
    const uint quadK0 = kBegin + 4 * aQuadK;
    uint quadC = quadK0 / KHW, quadKy = (quadK0 % KHW) / KW, quadKx = quadK0 % KW;
    uvec4 bRaw0, bRaw1;
    uint bCount0 = 0, bCount1 = 0;  // k of each B chunk below Kg (0: past Ng or Kg)
    // One step's registers, kept aside while the next step loads (TWO_STEPS).
    #define STAGED_STEP StagedStep(aLow, aHigh, aShift, aCount, bRaw0, bRaw1, bCount0, bCount1)
    #define RESTAGE(s)                                                                                               \
      aLow = s.aLow, aHigh = s.aHigh, aShift = s.aShift, aCount = s.aCount, bRaw0 = s.bRaw0, bRaw1 = s.bRaw1,        \
      bCount0 = s.bCount0, bCount1 = s.bCount1
    // The tap's offset from the quad's pixelBase is the same for its 4 rows.
    #define LOAD_A_K(i)                                                                                              \
      {                                                                                                              \
        const uint dy = ky * DILATION_Y, dx = kx * DILATION_X;                                                       \
        const bool kValid = i < aCount;                                                                              \
        if (ROWS_CONTIGUOUS) {                                                                                       \
          const int xOff = int(dx) - int(PAD_X), xAligned = xOff & ~3;                                               \
          const COORD_T x0 = ix0[0] + COORD_T(xAligned);                                                             \
          const bool rowIn = kValid && (Y_IN_RANGE || inRange(iy0[0] + COORD_T(dy), p.inputH));                      \
          /* INDEX_T offsets wrap: the low word's may lie below 0 (padding). */                                      \
          const INDEX_T offset = pixelBase[0] + INDEX_T(c) * inS1 + INDEX_T(dy) * inS2 + INDEX_T(COORD_T(xAligned)); \
          aLow[i] = rowIn && (X_IN_RANGE || inRange(x0, p.inputW)) ? WordRef(inputAddress + uint64_t(offset)).value  \
                                                                   : xzWord;                                         \
          /* The second word, at offset + 4, only where the 4 bytes straddle two and the */                       \
          /* next lane's quad does not continue the row (its first word is this one: A_WORDS). */                   \
          aHigh[i] = rowIn && (xOff & 3) != 0 && !highFromNext && (X_IN_RANGE || inRange(x0 + 4, p.inputW))          \
                         ? WordRef(inputAddress + uint64_t(offset + 4)).value                                        \
                         : xzWord;                                                                                   \
          aShift[i] = uint(xOff & 3) * 8;                                                                            \
        } else {                                                                                                     \
          const INDEX_T tap = INDEX_T(c) * inS1 + INDEX_T(dy) * inS2 + INDEX_T(dx) * inS3;                           \
          uint word = 0;                                                                                             \
          [[unroll]] for (uint j = 0; j < 4; ++j) {                                                                  \
            const bool inside = kValid && rowValid[j] &&                                                             \
                                (Y_IN_RANGE || inRange(iy0[j] + COORD_T(dy), p.inputH)) &&                           \
                                (X_IN_RANGE || inRange(ix0[j] + COORD_T(dx), p.inputW));                             \
            const uint value = inside ? loadByte(inputAddress + uint64_t(pixelBase[j] + tap)) : xzBits;              \
            word |= value << (8 * j);                                                                                \
          }                                                                                                          \
          aLow[i] = word;                                                                                            \
          aShift[i] = 0;                                                                                             \
        }                                                                                                            \
        stepK(c, ky, kx);                                                                                            \
      }
    // B: 16 consecutive k of filter row n (chunk = t + r * WG).
    #define LOAD_B_CHUNK(kt, r, raw, count)                                                                          \
      {                                                                                                              \
        const uint kStart = (kt) * BK + 16 * (t % 2);                                                                \
        count = WHOLE_STEPS ? bRowCount[r] : kStart < Kg ? min(bRowCount[r], Kg - kStart) : 0u;                      \
        if (count == 16 && bAligned[r]) {                                                                            \
          raw = Word4Ref(filterAddress + uint64_t(bRowOffset[r] + INDEX_T(kBegin + kStart))).value;                  \
        } else {                                                                                                     \
          /* Byte by byte into a shift register: no dynamic index. */                                               \
          raw = uvec4(0);                                                                                            \
          const uint fk = kBegin + kStart;                                                                           \
          uint fc = fk / KHW, fky = (fk % KHW) / KW, fkx = fk % KW;                                                  \
          for (uint e = 0; e < 16; ++e) {                                                                            \
            uint value = 0;                                                                                          \
            if (e < count) {                                                                                         \
              value = loadByte(filterAddress + uint64_t(bRowOffset[r] + INDEX_T(fc) * fS1 + INDEX_T(fky) * fS2 +     \
                                                        INDEX_T(fkx) * fS3));                                        \
              stepK(fc, fky, fkx);                                                                                   \
            }                                                                                                        \
            raw = uvec4((raw.x >> 8) | (raw.y << 24), (raw.y >> 8) | (raw.z << 24), (raw.z >> 8) | (raw.w << 24),   \
                        (raw.w >> 8) | (value << 24));                                                               \
          }                                                                                                          \
        }                                                                                                            \
      }
    // Every step loaded lies below kTiles * BK, which is Kg for whole steps.
    #define LOAD_A_STEP(kt)                                                                                          \
      {                                                                                                              \
        const uint kq = (kt) * BK + 4 * aQuadK;                                                                      \
        aCount = WHOLE_STEPS ? quadK : kq < Kg ? min(quadK, Kg - kq) : 0u;                                           \
        uint c = quadC, ky = quadKy, kx = quadKx;                                                                    \
        LOAD_A_K(0)                                                                                                  \
        LOAD_A_K(1)                                                                                                  \
        LOAD_A_K(2)                                                                                                  \
        LOAD_A_K(3)                                                                                                  \
        /* The quad's first k of the next step: + BK, without dividing. */                                         \
        if (KW > 1) {                                                                                                \
          quadKx += STEP_KX;                                                                                         \
          if (quadKx >= KW) {                                                                                        \
            quadKx -= KW;                                                                                            \
            if (KH > 1)                                                                                              \
              ++quadKy;                                                                                              \
            else                                                                                                     \
              ++quadC;                                                                                               \
          }                                                                                                          \
        }                                                                                                            \
        if (KH > 1) {                                                                                                \
          quadKy += STEP_KY;                                                                                         \
          if (quadKy >= KH) {                                                                                        \
            quadKy -= KH;                                                                                            \
            ++quadC;                                                                                                 \
          }                                                                                                          \
        }                                                                                                            \
        quadC += STEP_C;                                                                                             \
      }
    #define LOAD_B_STEP(kt)                                                                                          \
      {                                                                                                              \
        LOAD_B_CHUNK(kt, 0, bRaw0, bCount0)                                                                          \
        if (B_CHUNKS == 2) LOAD_B_CHUNK(kt, 1, bRaw1, bCount1)                                                       \
      }
    #define LOAD_STEP(kt) { LOAD_A_STEP(kt) LOAD_B_STEP(kt) }
    // The 4 bytes of k i: funnel-shifted, flipped to INT8, 0 past M and Kg.
    // The high word: the next lane's low word where its quad continues the row.
    #define A_WORD(i)                                                                                                \
      (i < aCount ? (((aShift[i] == 0 ? aLow[i]                                                                      \
                                      : (aLow[i] >> aShift[i]) |                                                     \
                                            ((highFromNext ? nextLow[i] : aHigh[i]) << (32 - aShift[i]))) ^          \
                      INPUT_FLIP) &                                                                                  \
                     (ROWS_CONTIGUOUS ? ~0u : rowMask))                                                              \
                  : 0u)
    #define STORE_A_ROW(base, rows, j)                                                                               \
      tiles[base + quadTileRow(aQuadRow, j) * ROW4 + aQuadK / 4][aQuadK % 4] = rows[j];                              \
      if (NEED_ROW_SUMS) rowPartial[j] += signedByteSum(rows[j]);
    // B chunk values flipped to INT8, bytes past Kg 0.
    #define STORE_B_CHUNK(base, r, raw, count, partial)                                                              \
      {                                                                                                              \
        const uint chunk = t + r * WG;                                                                               \
        uvec4 words = raw ^ uvec4(FILTER_FLIP);                                                                      \
        if (count < 16) {                                                                                            \
          const ivec4 valid = clamp(ivec4(int(count)) - ivec4(0, 4, 8, 12), 0, 4);                                   \
          words &= mix(uvec4(1u) << (8u * uvec4(valid)), uvec4(0u), equal(valid, ivec4(4))) - uvec4(1u);             \
        }                                                                                                            \
        tiles[base + (BM + chunk / 2) * ROW4 + chunk % 2] = words;                                                   \
        if (NEED_COL_SUMS) partial += signedByteSum(words);                                                          \
      }
    // Stores the registers into buffer `b` and adds them to the sums.
    #define STORE_A_STEP(b)                                                                                          \
      {                                                                                                              \
        const uint base = (b) * STAGE4;                                                                              \
        const uvec4 nextLow = subgroupShuffleDown(aLow, 1); /* in uniform control flow */                            \
        const uvec4 rows = transposeBytes(uvec4(A_WORD(0), A_WORD(1), A_WORD(2), A_WORD(3)));                        \
        STORE_A_ROW(base, rows, 0)                                                                                   \
        STORE_A_ROW(base, rows, 1)                                                                                   \
        STORE_A_ROW(base, rows, 2)                                                                                   \
        STORE_A_ROW(base, rows, 3)                                                                                   \
      }
    #define STORE_B_STEP(b)                                                                                          \
      {                                                                                                              \
        const uint base = (b) * STAGE4;                                                                              \
        STORE_B_CHUNK(base, 0, bRaw0, bCount0, colPartial0)                                                          \
        if (B_CHUNKS == 2) STORE_B_CHUNK(base, 1, bRaw1, bCount1, colPartial1)                                       \
      }
    #define STORE_STEP(b) { STORE_A_STEP(b) STORE_B_STEP(b) }

#if PACKED
    // The filter (B) comes packed (convolution_integer_pack.comp), and the
    // im2col matrix (A) too where PACK_A: each K step is one contiguous
    // block, already flipped and padded; invocation t stages chunk t of A
    // (row t/2) and chunks t, t + WG of B.
    #undef LOAD_STEP
    #undef STORE_STEP
    const uint64_t packed = tensorAddress(p.scratchSlot);
    // Blocks of all K steps per tile (p.kTiles, kTiles unless CHUNKED); this
    // dispatch's chunk starts at step kBegin / BK.
    const uint allSteps = CHUNKED ? p.kTiles : kTiles, firstStep = kBegin / BK;
    const uint64_t aBlocks =
        packed + p.packedAOffset + uint64_t((g * p.mTiles + mTile) * allSteps + firstStep) * (BM * 32) + 16 * t;
    const uint64_t bBlocks =
        packed + p.packedBOffset + uint64_t((g * p.nTiles + nTile) * allSteps + firstStep) * (BN * 32) + 16 * t;
    uvec4 aChunk;
    #define LOAD_STEP(kt)                                                                                            \
      {                                                                                                              \
        if (PACK_A)                                                                                                  \
          aChunk = Word4Ref(aBlocks + uint64_t(kt) * (BM * 32)).value;                                              \
        else                                                                                                         \
          LOAD_A_STEP(kt)                                                                                            \
        bRaw0 = Word4Ref(bBlocks + uint64_t(kt) * (BN * 32)).value;                                                 \
        if (B_CHUNKS == 2) bRaw1 = Word4Ref(bBlocks + uint64_t(kt) * (BN * 32) + 16 * WG).value;                    \
      }
    #define STORE_STEP(b)                                                                                            \
      {                                                                                                              \
        const uint base = (b) * STAGE4;                                                                              \
        if (PACK_A) {                                                                                                \
          tiles[base + (t / 2) * ROW4 + t % 2] = aChunk;                                                             \
          if (NEED_ROW_SUMS) rowPartial[0] += signedByteSum(aChunk);                                                 \
        } else                                                                                                       \
          STORE_A_STEP(b)                                                                                            \
        tiles[base + (BM + t / 2) * ROW4 + t % 2] = bRaw0;                                                           \
        if (NEED_COL_SUMS) colPartial0 += signedByteSum(bRaw0);                                                      \
        if (B_CHUNKS == 2) {                                                                                         \
          tiles[base + (BM + (t + WG) / 2) * ROW4 + t % 2] = bRaw1;                                                  \
          if (NEED_COL_SUMS) colPartial1 += signedByteSum(bRaw1);                                                    \
        }                                                                                                            \
      }
#endif

    // The multiplies of the K step in the buffer at `base`: the FN B
    // fragments held, one A fragment at a time (FN + 1 operand fragments in
    // registers rather than FM + 1).
    #define MULTIPLY(base)                                                                                           \
      {                                                                                                              \
        B_T b[FN];                                                                                                   \
        [[unroll]] for (uint j = 0; j < FN; ++j) LOAD_B(b[j], base + (BM + (warpN * FN + j) * 16) * ROW4, ROW4);     \
        FRAGMENT_LOOP for (uint i = 0; i < FRAGMENTS_M; ++i) {                                                       \
          A_T a;                                                                                                     \
          LOAD_A(a, base + (warpM * FM + i) * 16 * ROW4, ROW4);                                                      \
          FRAGMENT_LOOP for (uint j = 0; j < FRAGMENTS_N; ++j) acc[i * FN + j] = MMA(a, b[j], acc[i * FN + j]);      \
        }                                                                                                            \
      }
    ACC_T acc[FM * FN];
    [[unroll]] for (uint f = 0; f < FM * FN; ++f) acc[f] = ACC_ZERO;

#if PACKED && PREFETCH > 1
    // Packed chunks PREFETCH K steps ahead of their store: slot s of the
    // rings holds the step that is s modulo PREFETCH. The step loop is
    // unrolled by PREFETCH so that every slot index is a literal (a dynamic
    // index, or picking the slot by compares, measured slower on the H200).
    // A, where it is gathered, stays one step ahead.
    uvec4 ringA[PREFETCH], ringB0[PREFETCH], ringB1[PREFETCH];
    #define LOAD_SLOT(kt, s)                                                                                         \
      if ((kt) < kTiles) {                                                                                           \
        if (PACK_A) ringA[s] = Word4Ref(aBlocks + uint64_t(kt) * (BM * 32)).value;                                  \
        ringB0[s] = Word4Ref(bBlocks + uint64_t(kt) * (BN * 32)).value;                                             \
        if (B_CHUNKS == 2) ringB1[s] = Word4Ref(bBlocks + uint64_t(kt) * (BN * 32) + 16 * WG).value;                \
      }
    #define TAKE_SLOT(s)                                                                                             \
      {                                                                                                              \
        if (PACK_A) aChunk = ringA[s];                                                                               \
        bRaw0 = ringB0[s];                                                                                           \
        if (B_CHUNKS == 2) bRaw1 = ringB1[s];                                                                        \
      }
    [[unroll]] for (uint s = 0; s < PREFETCH; ++s) LOAD_SLOT(s, s)
    TAKE_SLOT(0)
    if (!PACK_A) LOAD_A_STEP(0u)
    STORE_STEP(0u)
    barrier();
    LOAD_SLOT(PREFETCH, 0)
    for (uint kt0 = 0; kt0 < kTiles; kt0 += PREFETCH) {
      [[unroll]] for (uint d = 0; d < PREFETCH; ++d) {
        const uint kt = kt0 + d;
        if (kt >= kTiles) break;
        const bool more = kt + 1 < kTiles;
        if (!PACK_A && more) LOAD_A_STEP(kt + 1)
        MULTIPLY((kt % 2) * STAGE4)
        if (more) {
          // Step kt + 1 out of its slot, step kt + 1 + PREFETCH into it.
          TAKE_SLOT((d + 1) % PREFETCH)
          STORE_STEP((kt + 1) % 2)
          LOAD_SLOT(kt + 1 + PREFETCH, (d + 1) % PREFETCH)
        }
        barrier();
      }
    }
#else
#if !PACKED
    if (TWO_STEPS) {
      // The whole of K fills the two buffers: both steps' loads are issued
      // before either is stored, so the tile waits for one round trip to
      // memory instead of two (measured on the H200's 1x1 64->256 layer,
      // K = 64: 47.5 -> 45 us).
      LOAD_STEP(0u)
      const StagedStep step0 = STAGED_STEP;
      LOAD_STEP(1u)
      const StagedStep step1 = STAGED_STEP;
      RESTAGE(step0);
      STORE_STEP(0u)
      RESTAGE(step1);
      STORE_STEP(1u)
      barrier();
      MULTIPLY(0)
      MULTIPLY(STAGE4)
    } else
#endif
    {
      LOAD_STEP(0u)
      STORE_STEP(0u)
      barrier();
      for (uint kt = 0; kt < kTiles; ++kt) {
        const bool more = kt + 1 < kTiles;
        if (more) LOAD_STEP(kt + 1)  // global loads in flight during the multiplies
        MULTIPLY((kt % 2) * STAGE4)
        if (more) STORE_STEP((kt + 1) % 2)
        barrier();
      }
    }
#endif

    // Sums: each row and column has several contributors.
    if (NEED_ROW_SUMS) {
      if (PACKED != 0 && PACK_A)
        atomicAdd(rowSums[t / 2], rowPartial[0]);
      else
        [[unroll]] for (uint j = 0; j < 4; ++j) atomicAdd(rowSums[quadTileRow(aQuadRow, j)], rowPartial[j]);
    }
    if (NEED_COL_SUMS) {
      atomicAdd(colSums[t / 2], colPartial0);
      if (B_CHUNKS == 2) atomicAdd(colSums[(t + WG) / 2], colPartial1);
    }

    // Epilogue: per warp, 32 rows x 16 columns at a time through shared
    // memory (column-major, SCRATCH_COLUMN4 apart). Where the output allows
    // (OUTPUT_QUADS, a 16-byte aligned base) each lane stores 4 consecutive
    // m of a channel as one 16-byte word, 8 lanes a whole line; otherwise
    // each lane 1 m, each store instruction 32 consecutive m of a channel.
    // These loops are unrolled like every loop that indexes `acc`
    // (FRAGMENT_LOOP): a dynamic index would move the accumulators out of
    // registers. A term whose sums were not taken is 0 (its zero point is).
    const uint scratch = warp * SCRATCH_WARP4;
    const int kg = int(Kg);
    // Read once: a parameter read between output stores would be repeated
    // after each (the stores might alias the parameter block).
    const INDEX_T outputChannelStride = INDEX_T(p.outputStrides[1]);
    const uint columnsLeft = Ng - n0;
    const bool quadStores = OUTPUT_QUADS && (uint(outputAddress) & 15u) == 0;
    // The scratch value at tile row rowBase + offset and scratch column c,
    // with the zero points folded in.
    #define CORRECTED(offset, c, rowSum, wz, colSum)                                                                 \
      (int(tiles[scratch + (c) * SCRATCH_COLUMN4 + (offset) / 4][(offset) % 4]) +                                   \
       (NEED_ROW_SUMS ? (NEED_COL_SUMS ? kg * xzFlipped - (rowSum) : -(rowSum)) * (wz) : 0) -                       \
       (NEED_COL_SUMS ? xzFlipped * (colSum) : 0))
    FRAGMENT_LOOP for (uint ip = 0; ip < FM / 2; ++ip) {
      const uint rowBase = (warpM * FM + 2 * ip) * 16;  // a multiple of 32: m0 + rowBase + 0..31 are its m
      // This lane's first m: rowBase + lane, or the quad's first where quadStores.
      const uint mQuad = lane % 8, quadGroup = lane / 8;
      const uint row = rowBase + lane;
      const uint m = m0 + (quadStores ? rowBase + 4 * mQuad : tileRowM(row));
      const bool valid = m - m0 < M - m0;  // for quads: all 4 (M % 4 == 0)
      const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
      const INDEX_T outRow = INDEX_T(batch) * INDEX_T(p.outputStrides[0]) + INDEX_T(oy) * INDEX_T(p.outputStrides[2]) +
                             INDEX_T(ox) * INDEX_T(p.outputStrides[3]) + INDEX_T(g * Ng + n0) * outputChannelStride;
      // The tile row (offset from rowBase) of m's quad element e.
      #define QUAD_ROW(e) (ROWS_INTERLEAVED ? mQuad + 8 * (e) : 4 * mQuad + (e))
      FRAGMENT_LOOP for (uint j = 0; j < FN; ++j) {
        // The warp's scratch is its own: only its first use waits for every
        // warp (the staging buffers it overlaps are no longer read, the sums
        // are complete), later ones for the warp's own reads.
        if (ip == 0 && j == 0)
          barrier();
        else
          WARP_BARRIER();
        [[unroll]] for (uint h = 0; h < 2; ++h) STORE_ACC(acc[(2 * ip + h) * FN + j], scratch + 4 * h, SCRATCH_COLUMN4);
        WARP_BARRIER();
        const uint column0 = (warpN * FN + j) * 16;
        if (quadStores) {
          ivec4 rowSum4 = ivec4(0);
          if (NEED_ROW_SUMS)
            [[unroll]] for (uint e = 0; e < 4; ++e) rowSum4[e] = rowSums[rowBase + QUAD_ROW(e)];
          [[unroll]] for (uint q = 0; q < 4; ++q) {
            const uint c = 4 * q + quadGroup, column = column0 + c;
            if (!valid || column >= columnsLeft) continue;
            const int wz = NEED_ROW_SUMS ? colZeroPoints[column] : 0, colSum = NEED_COL_SUMS ? colSums[column] : 0;
            ivec4 value;
            [[unroll]] for (uint e = 0; e < 4; ++e) value[e] = CORRECTED(QUAD_ROW(e), c, rowSum4[e], wz, colSum);
            const uint64_t address = outputAddress + 4 * uint64_t(outRow + INDEX_T(column) * outputChannelStride);
            if (ACCUMULATE_OUTPUT) value += Output4ReadRef(address).value;
            Output4Ref(address).value = value;
          }
        } else {
          const int rowSum = NEED_ROW_SUMS ? rowSums[row] : 0;
          [[unroll]] for (uint c = 0; c < 16; ++c) {
            const uint column = column0 + c;
            if (!valid || column >= columnsLeft) continue;
            const int wz = NEED_ROW_SUMS ? colZeroPoints[column] : 0, colSum = NEED_COL_SUMS ? colSums[column] : 0;
            const int value = CORRECTED(lane, c, rowSum, wz, colSum);
            const uint64_t address = outputAddress + 4 * uint64_t(outRow + INDEX_T(column) * outputChannelStride);
            OutputRef(address).value = ACCUMULATE_OUTPUT ? OutputReadRef(address).value + value : value;
          }
        }
      }
    }
    barrier();  // the sums and scratch are read before the next tile resets them
  }
}
