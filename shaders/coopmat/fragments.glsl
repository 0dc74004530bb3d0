// convolution_integer_coopmat.comp: the matrix operations, on the device's
// cooperative matrices (COOPMAT_NV) or emulated in plain GLSL
// (COOPMAT_EMULATED, to test the rest of the kernel on any device), and the
// byte sums of staged words.
//
// The staging and the epilogue see 16x16-output, 32-deep blocks; each is
// built from the device's FRAG_M x FRAG_N x FRAG_K fragments (multiply.glsl):
// 16x16x32 (NVIDIA, the default), 16x8x32, 16x16x16 (AMD) or 8x16x32
// (Intel), whatever the device lists.
#ifndef FRAG_M
#define FRAG_M 16
#define FRAG_N 16
#define FRAG_K 32
#endif
const uint SUB_M = 16 / FRAG_M, SUB_N = 16 / FRAG_N, SUB_K = 32 / FRAG_K;  // fragments per block
const uint SUBS = SUB_M * SUB_N;  // accumulators per block
#if COOPMAT_NV
// A 16x16x16 A and B would be one NV type, which the KHR translation cannot
// give two Uses (tools/spirv_nv_to_khr): B's rows are then a specialization
// constant (id 11, which the host never sets), a type of its own.
#if FRAG_M == FRAG_K && FRAG_N == FRAG_K
layout(constant_id = 11) const uint FRAG_K_OF_B = FRAG_K;
#define B_ROWS FRAG_K_OF_B
#else
#define B_ROWS FRAG_K
#endif
#define A_T icoopmatNV<8, gl_ScopeSubgroup, FRAG_M, FRAG_K>
#define B_T icoopmatNV<8, gl_ScopeSubgroup, B_ROWS, FRAG_N>
#define ACC_T icoopmatNV<32, gl_ScopeSubgroup, FRAG_M, FRAG_N>
#define ACC_ZERO ACC_T(0)
#define LOAD_A(f, element, stride) coopMatLoadNV(f, tiles, element, stride, false)
#define LOAD_B(f, element, stride) coopMatLoadNV(f, tiles, element, stride, true)
#define MMA(a, b, c) coopMatMulAddNV(a, b, c)
#define STORE_ACC(f, element, stride) coopMatStoreNV(f, tiles, element, stride, true)
#define STORE_ACC_ROWS(f, element, stride) coopMatStoreNV(f, tiles, element, stride, false)
#define FRAGMENT_LOOP [[unroll]]  // a dynamic index would move the accumulators to local memory
#define FRAGMENTS_M FM            // the fragments MULTIPLY takes, all
#define FRAGMENTS_N FN
#define WARP_BARRIER() subgroupBarrier()  // a warp is a subgroup (32 lanes, checked by the host)
void setLiveFragments() {}
#elif COOPMAT_EMULATED
// A or B "fragment": where it lies in `tiles` (read only before the next
// barrier, as the real fragments are). An accumulator: lane l of a 32-lane
// warp holds elements ACC_E * l .. ACC_E * l + ACC_E - 1 of the FRAG_M x
// FRAG_N matrix, row-major (ACC_E divides FRAG_N: one row per lane).
struct Fragment {
  uint element, stride;  // in uvec4, as coopMatLoad takes them
};
const uint ACC_E = FRAG_M * FRAG_N / 32;
struct Accumulator {
  int v[ACC_E];
};
#define A_T Fragment
#define B_T Fragment
#define ACC_T Accumulator
#define ACC_ZERO zeroAccumulator()
#define LOAD_A(f, e, s) f = Fragment(e, s)
#define LOAD_B(f, e, s) f = Fragment(e, s)
#define MMA(a, b, c) emulatedMulAdd(a, b, c)
#define STORE_ACC(f, e, s) emulatedStore(f, e, s, true)
#define STORE_ACC_ROWS(f, e, s) emulatedStore(f, e, s, false)
// The emulated multiplies are plain arrays: their loops stay loops (unrolled,
// they take lavapipe minutes to compile where the step loop is unrolled too).
#define FRAGMENT_LOOP [[dont_unroll]]
#define FRAGMENTS_M liveFragmentsM  // those not wholly past M or Ng (setLiveFragments)
#define FRAGMENTS_N liveFragmentsN
// An emulated warp's 32 invocations can span several subgroups (lavapipe: 8 lanes).
#define WARP_BARRIER() barrier()
Accumulator zeroAccumulator() {
  Accumulator c;
  [[unroll]] for (uint e = 0; e < ACC_E; ++e) c.v[e] = 0;
  return c;
}
// The sum of the products of the 4 signed bytes of x and y.
int signedDot4(uint x, uint y) {
  int sum = 0;
  [[unroll]] for (uint i = 0; i < 4; ++i)
    sum += bitfieldExtract(int(x), int(8 * i), 8) * bitfieldExtract(int(y), int(8 * i), 8);
  return sum;
}
// Lane l's elements are one row of A times ACC_E columns of B: its row's
// FRAG_K bytes are read once. The loops are unrolled (no loop passes).
Accumulator emulatedMulAdd(Fragment a, Fragment b, Accumulator c) {
  const uint lane = gl_LocalInvocationID.x % 32, first = ACC_E * lane;
  const uint rowAt = a.element + (first / FRAG_N) * a.stride;  // A row-major (rows of k), B column-major (columns of k)
  uvec4 row[FRAG_K / 16];
  [[unroll]] for (uint q = 0; q < FRAG_K / 16; ++q) row[q] = tiles[rowAt + q];
  [[unroll]] for (uint e = 0; e < ACC_E; ++e) {
    const uint columnAt = b.element + (first % FRAG_N + e) * b.stride;
    int sum = 0;
    [[unroll]] for (uint q = 0; q < FRAG_K / 16; ++q) {
      const uvec4 column = tiles[columnAt + q];
      [[unroll]] for (uint w = 0; w < 4; ++w) sum += signedDot4(row[q][w], column[w]);
    }
    c.v[e] += sum;
  }
  return c;
}
void emulatedStore(Accumulator c, uint element, uint stride, bool columnMajor) {  // int32
  const uint lane = gl_LocalInvocationID.x % 32;
  [[unroll]] for (uint e = 0; e < ACC_E; ++e) {
    const uint row = (ACC_E * lane + e) / FRAG_N, column = (ACC_E * lane + e) % FRAG_N;
    const uint word = columnMajor ? 4 * (element + column * stride) + row : 4 * (element + row * stride) + column;
    tiles[word / 4][word % 4] = uint(c.v[e]);
  }
}

// Fragments wholly past M or Ng only add to results that are never stored:
// the emulation skips them (their first tile row holds their smallest m, see
// tileRowM), most of the work of a narrow GEMM. The live ones come first, so
// their counts bound the fragment loops (a branch around the work would not
// do: lavapipe runs branches that no lane takes, masked).
uint liveFragmentsM, liveFragmentsN;
void setLiveFragments() {
  liveFragmentsM = 0, liveFragmentsN = 0;
  [[unroll]] for (uint i = 0; i < FM; ++i)
    if (tileRowM(16 * (warpM * FM + i)) < M - m0) liveFragmentsM = i + 1;
  [[unroll]] for (uint j = 0; j < FN; ++j)
    if ((warpN * FN + j) * 16 < Ng - n0) liveFragmentsN = j + 1;
}
#else
#error define COOPMAT_NV or COOPMAT_EMULATED
#endif

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
