// convolution_integer_coopmat.comp: the matrix operations, on the device's
// cooperative matrices (COOPMAT_NV) or emulated in plain GLSL
// (COOPMAT_EMULATED, to test the rest of the kernel on any device), and the
// byte sums of staged words.
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
void setLiveFragments() {}
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
#define FRAGMENTS_M liveFragmentsM  // those not wholly past M or Ng (setLiveFragments)
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
