// convolution_integer_coopmat.comp: the tile (interface/convolution_integer.h),
// the specialization constants and what follows from them, shared memory,
// and the order of the tile's rows.

const uint WARPS_M = VKDML_COOPMAT_WARPS_M(WARPS), WARPS_N = WARPS / WARPS_M;
// FM: A blocks per warp along m, COOPMAT_FM, or COOPMAT_SHORT_FM where the
// variant's tiles take 96 rows (-DFM=3), or COOPMAT_HALF_FM where 4 warps
// take 64 (-DFM=2). A literal, for the #if that keep the other variants'
// code as it is.
#ifndef FM
#define FM 4
#endif
const uint WG = 32 * WARPS;
// The emulated kernel reads the geometry (the constants of kind param) and
// the PARAM_FLAGS from ConvParams, and sets what follows from them at run
// time (setupInvocation), in Private variables: the plan leaves those
// constants at their defaults, so that a test's cases share a few
// pipelines, each of which lavapipe takes seconds to compile
// (bench/results/test_time.md). Elsewhere all are constants, for the
// driver to fold. X(type, name, value): what follows from them. The XOR
// masks flip UINT8 bytes to INT8; the row sums only matter where the
// flipped filter zero point can be nonzero, the column sums where the
// flipped input zero point can.
#if COOPMAT_EMULATED
#undef VKDML_SPEC_param_
#define VKDML_SPEC_param_(name, id, value) uint name;
#define PARAM_BITS paramBits
uint paramBits;
#define VKDML_FOLLOWS_(type, name, value) type name;
#else
#define PARAM_BITS FLAGS
#define VKDML_FOLLOWS_(type, name, value) const type name = value;
#endif
#define VKDML_COOPMAT_FROM_PARAMS(X)                               \
  X(uint, KHW, KH * KW)                                            \
  X(bool, HAS_XZ, (PARAM_BITS & HAS_INPUT_ZERO_POINT) != 0)       \
  X(bool, HAS_WZ, (PARAM_BITS & HAS_FILTER_ZERO_POINT) != 0)      \
  X(bool, INPUT_SIGNED, (PARAM_BITS & INPUT_SIGNED_FLAG) != 0)    \
  X(bool, FILTER_SIGNED, (PARAM_BITS & FILTER_SIGNED_FLAG) != 0)  \
  X(bool, Y_IN_RANGE, (PARAM_BITS & TAPS_Y_IN_RANGE) != 0)        \
  X(bool, X_IN_RANGE, (PARAM_BITS & TAPS_X_IN_RANGE) != 0)        \
  X(bool, OUTPUT_QUADS, (PARAM_BITS & OUTPUT_M_QUADS) != 0)       \
  X(bool, OUTPUT_CHANNEL_QUADS, (PARAM_BITS & OUTPUT_N_QUADS) != 0) \
  X(bool, OUTPUT_CHANNELS_INNERMOST, (PARAM_BITS & OUTPUT_N_INNERMOST) != 0) \
  X(uint, INPUT_FLIP, INPUT_SIGNED ? 0u : 0x80808080u)            \
  X(uint, FILTER_FLIP, FILTER_SIGNED ? 0u : 0x80808080u)          \
  X(bool, NEED_ROW_SUMS, !FILTER_SIGNED || HAS_WZ)                \
  X(bool, NEED_COL_SUMS, !INPUT_SIGNED || HAS_XZ)
VKDML_SPECIALIZATION(ConvolutionIntegerCoopmatConstants, VKDML_CONVOLUTION_INTEGER_COOPMAT_CONSTANTS)
layout(local_size_x = WG) in;  // the host passes WG as WORKGROUP_SIZE: the tiling assumes it
VKDML_COOPMAT_FROM_PARAMS(VKDML_FOLLOWS_)
const bool ROWS_CONTIGUOUS = (FLAGS & INPUT_ROWS_CONTIGUOUS) != 0;
const bool ROWS_STRIDE2 = (FLAGS & INPUT_ROWS_STRIDE2) != 0;
const bool ROWS_WORDS = ROWS_CONTIGUOUS || ROWS_STRIDE2;  // a quad's row 0 locates its 4 bytes (stage.glsl)
const bool K_CONTIGUOUS = (FLAGS & FILTER_K_CONTIGUOUS) != 0;
const bool WHOLE_STEPS = (FLAGS & K_WHOLE_STEPS) != 0;
const bool TWO_STEPS = (FLAGS & K_TWO_STEPS) != 0;
const bool ACCUMULATE_OUTPUT = (FLAGS & ACCUMULATE) != 0;  // a later chunk of K: add to the output
const bool CHUNKED = (FLAGS & K_CHUNKED) != 0;             // a chunk of K, not all of it
const bool SPLIT_K = (FLAGS & K_SPLIT) != 0;                 // chunk gl_WorkGroupID.y of K, added atomically
// Its chunks zero the output (split.glsl); one test of FLAGS (glslang makes
// `SPLIT_K && ...` code, not a constant).
const bool SPLIT_ZEROES = (FLAGS & (K_SPLIT | K_SPLIT_ZEROES)) == (K_SPLIT | K_SPLIT_ZEROES);
const bool ROWS_OF_GROUPS = (FLAGS & GRID_ROWS) != 0;
const uint BM = VKDML_COOPMAT_ROWS(WARPS, FM);  // tile rows (output pixels)
const uint BN = FN * 16 * WARPS_N;  // tile columns (output channels of the group)
const uint BK = COOPMAT_BK;         // tile depth: one fragment K
// K_PAIRED_ROWS (interface/convolution_integer.h): rows of two K steps.
const bool PAIRED_ROWS = (FLAGS & K_PAIRED_ROWS) != 0;
// ROWS_UNPADDED (interface/convolution_integer.h): rows of BK bytes alone.
const bool UNPADDED = (FLAGS & ROWS_UNPADDED) != 0 && WARPS == 4 && !PAIRED_ROWS;
const uint ROW4 = UNPADDED ? BK / 16 : VKDML_COOPMAT_ROW4(PAIRED_ROWS);
// A pair's steps stored side by side into the two buffers (A_PAIRED_CHUNKS
// without K_PAIRED_ROWS) on unpadded rows: the second buffer 16 words
// further, so that the 8 lanes storing two rows of both steps hit distinct banks.
// (Arithmetic, not a select: glslang 12 writes a select of these constants
// that refers to an id before its definition.)
const uint STAGE_SKEW4 = (WARPS == 4 ? 4u : 0u) * ((FLAGS / A_PAIRED_CHUNKS) & 1u) * ((FLAGS / ROWS_UNPADDED) & 1u) *
                         (1u - ((FLAGS / K_PAIRED_ROWS) & 1u));
const uint STAGE4 = (BM + BN) * ROW4 + STAGE_SKEW4;  // one buffer: A rows, then B rows
const uint B_CHUNKS = max(BN * 2 / WG, 1u);  // 16-byte B chunks each invocation stages per step: 1 or 2 (16 warps: 1 or 0)
const uint A_CHUNKS = (BM * 2 + WG - 1) / WG;  // likewise for A, where it comes packed (A_IN_SCRATCH)
const uint A_PAIR_CHUNKS = (BM * 4 + WG - 1) / WG;  // and per pair of steps, 4 a row (A_PAIRS, step.glsl)
// `statement` where A chunk r of this invocation lies in the tile: 96-row
// tiles have 192 chunks for 256 invocations (and an epilogue pass of one
// fragment, epilogue.glsl). The other variants' code stays as it was.
#if FM == 3
#define IN_TILE_CHUNK(r, perRow, statement) \
  if ((t + (r) * WG) / (perRow) < BM) {     \
    statement;                              \
  }
#else
#define IN_TILE_CHUNK(r, perRow, statement) statement;
#endif
#define IN_TILE_A_CHUNK(r, statement) IN_TILE_CHUNK(r, 2, statement)
// The epilogue's per-warp scratch (interface/convolution_integer.h).
const uint SCRATCH_COLUMN4 = COOPMAT_SCRATCH_COLUMN4;
const uint SCRATCH_ROW4 = COOPMAT_SCRATCH_ROW4;
const uint SCRATCH_WARP4 = 16 * SCRATCH_COLUMN4;
shared uvec4 tiles[UNPADDED ? VKDML_MAX(2u * STAGE4, WARPS * 16u * COOPMAT_SCRATCH_COLUMN4)
                             : VKDML_COOPMAT_TILES4(WARPS, BN, PAIRED_ROWS)];  // 2 * STAGE4 or more, and the warps' scratch
shared int rowSums[BM];  // sum over k of each staged A row (flipped bytes)
shared int colSums[BN];  // likewise for B rows
shared int colZeroPoints[BN];  // the filter zero point of each column, flipped

// Gathered A (not packed): row j of row quad q (m 4q + j) goes to tile row
// 32 * (q / 8) + 8 * j + q % 8. Each 32 tile rows still hold 32 consecutive
// m (the epilogue's stores stay whole lines), and the 32 lanes storing row j
// of their quads hit 8 distinct bank groups.
const bool A_IN_SCRATCH = PACKED != 0 && A_PACKING != A_GATHERED;  // A's rows as 16-byte chunks (step.glsl)
const bool ROWS_INTERLEAVED = !A_IN_SCRATCH;
uint quadTileRow(uint quad, uint j) { return ROWS_INTERLEAVED ? 32 * (quad / 8) + 8 * j + quad % 8 : 4 * quad + j; }
// The m (from m0) of a tile row.
uint tileRowM(uint row) { return ROWS_INTERLEAVED ? (row & ~31u) + 4 * (row % 8) + (row % 32) / 8 : row; }

// A specialization constant widened in code: as a constant expression the
// 64-bit conversion would need SPIR-V 1.4.
COORD_T coord(uint v) { return COORD_T(v); }

// What every tile of this invocation shares (set once by setupInvocation):
// Private variables, registers once the driver has inlined the functions.
ConvParams p;
uint t, lane, warp, warpM, warpN;
bool stagesB;  // whether this invocation stages B chunks: all but the last 256 of 16 warps
uint64_t inputAddress, inputZeroPointAddress, filterAddress, filterZeroPointAddress, outputAddress;
// Kg: the length of this dispatch's chunk of K, all of it unless CHUNKED:
// k in [kBegin, kBegin + Kg) (kBegin a multiple of BK); every k is counted
// from kBegin. kTiles: its K steps.
uint M, Ng, Kg, kBegin, kTiles;
// The input zero point: its raw byte (the value of padded positions), its
// value in the flipped domain, and its byte in all 4 of a word.
uint xzBits, xzWord;
int xzFlipped;
// The 8-warp tiles of 256 columns, unsplit, test at run time whether the
// row sums' term can be nonzero: not where the filter zero point is one for
// the whole tensor and flips to 0 (symmetric INT8 filters), whose row sums
// they then leave out. With the test their K loop ran faster on the H200
// whether it skipped or not (the driver's schedule); on the other tiles it
// ran slower, and there ROW_SUMS_ON is NEED_ROW_SUMS
// (bench/results/zero_points.md).
#if WARPS == 8 && FN == 4
bool rowSumsLive;
#define ROW_SUMS_ON (NEED_ROW_SUMS && rowSumsLive)
#else
#define ROW_SUMS_ON NEED_ROW_SUMS
#endif
INDEX_T inS0, inS1, inS2, inS3, fS0, fS1, fS2, fS3;

#if COOPMAT_EMULATED
#define VKDML_SET_(type, name, value) name = value;
#endif
void setupInvocation() {
  p = ConvParams(pc.paramsAddress);
#if COOPMAT_EMULATED
  KH = p.kernelH, KW = p.kernelW, STRIDE_Y = p.strideY, STRIDE_X = p.strideX;
  DILATION_Y = p.dilationY, DILATION_X = p.dilationX, PAD_Y = p.padY, PAD_X = p.padX;
  paramBits = p.flags & PARAM_FLAGS;
  VKDML_COOPMAT_FROM_PARAMS(VKDML_SET_)
#endif
  t = gl_LocalInvocationID.x;
  lane = t % 32, warp = t / 32;
  warpM = warp % WARPS_M, warpN = warp / WARPS_M;
  stagesB = t < BN * 2;
  inputAddress = tensorAddress(0);
  inputZeroPointAddress = tensorAddress(1);
  filterAddress = tensorAddress(2);
  filterZeroPointAddress = tensorAddress(3);
  outputAddress = tensorAddress(4);
  M = p.M, Ng = p.groupOutputChannels;
  Kg = CHUNKED ? p.kLength : p.groupK, kBegin = CHUNKED ? p.kBegin : 0u;
  if (SPLIT_K) kBegin = gl_WorkGroupID.y * p.kLength, Kg = min(p.kLength, p.groupK - kBegin);
  kTiles = Kg / BK + uint(Kg % BK != 0);
  xzBits = HAS_XZ ? loadByte(inputZeroPointAddress) : 0u;
  xzFlipped = bitfieldExtract(int(xzBits ^ (INPUT_FLIP & 0xFFu)), 0, 8);
  xzWord = xzBits * 0x01010101u;
#if WARPS == 8 && FN == 4
  rowSumsLive = NEED_ROW_SUMS && (SPLIT_K || !HAS_WZ || p.filterZeroPointStride != 0 ||
                                  (loadByte(filterZeroPointAddress) ^ (FILTER_FLIP & 0xFFu)) != 0);
#endif
  inS0 = INDEX_T(p.inputStrides[0]), inS1 = INDEX_T(p.inputStrides[1]);
  inS2 = INDEX_T(p.inputStrides[2]), inS3 = INDEX_T(p.inputStrides[3]);
  fS0 = INDEX_T(p.filterStrides[0]), fS1 = INDEX_T(p.filterStrides[1]);
  fS2 = INDEX_T(p.filterStrides[2]), fS3 = INDEX_T(p.filterStrides[3]);
}

// The tile this workgroup works on: its place along m and n, and its
// group. Tiles run in bands of TILE_BAND m tiles, n slowest within a band:
// the workgroups in flight then share a few tiles' A rows and B columns
// (in L2) rather than stream all of A once per n tile (the 8192^3 GEMM's
// 64 MB of A per 256 columns).
uint mTile, nTile, g, m0, n0;
void setTile(uint tile) {
  const uint TILE_BAND = COOPMAT_TILE_BAND, perGroup = p.mTiles * p.nTiles;
  g = tile / perGroup;
  const uint i = tile - g * perGroup, bandTiles = TILE_BAND * p.nTiles, band = i / bandTiles;
  const uint first = band * TILE_BAND, rows = min(TILE_BAND, p.mTiles - first), j = i - band * bandTiles;
  mTile = first + j % rows;
  nTile = j / rows;
  m0 = mTile * BM, n0 = nTile * BN;
}
