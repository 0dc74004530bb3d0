// DML_CONVOLUTION_INTEGER's kernels (convolution_integer.comp,
// convolution_integer_dot.comp, convolution_integer_coopmat.comp,
// convolution_integer_pack.comp) and
// runtime/ops/convolution_integer_plan.cpp: the parameter block, its flags, the
// specialization constants and the cooperative-matrix kernel's tile.
#ifndef VKDML_INTERFACE_CONVOLUTION_INTEGER_H
#define VKDML_INTERFACE_CONVOLUTION_INTEGER_H
#include "common.h"

VKDML_INTERFACE_BEGIN

// One per dispatch (std430), shared by the four kernels.
VKDML_PARAMS(ConvParams) {
  uint64_t inputStrides[4];        // N, C, H, W (3-D tensors: H stride 0)
  uint64_t filterStrides[4];       // OC, C/G, KH, KW
  uint64_t outputStrides[4];       // N, OC, OH, OW
  uint64_t filterZeroPointStride;  // between output channels; 0 per tensor
  uint inputH, inputW;
  uint outputH, outputW;
  uint kernelH, kernelW;
  uint strideY, strideX;
  uint dilationY, dilationX;
  uint padY, padX;             // start padding
  uint groupChannels;          // C/G
  uint groupOutputChannels;    // Ng = OC/G
  uint groupK;                 // Kg = C/G*KH*KW
  uint M;                      // N*OH*OW
  uint mTiles, nTiles, tiles;  // tiles = mTiles * nTiles * G
  uint flags;
  // Packed operands (convolution_integer_pack.comp): where A's blocks start
  // in slot scratchSlot and B's in slot packedBSlot, in bytes (B in the
  // persistent resource where the initializer packed an owned filter).
  uint64_t packedAOffset, packedBOffset;
  uint scratchSlot;
  uint aChunks, totalChunks;  // the pack's items: A's 16-byte chunks (its tiles: channels-last, words), A's and B's
  uint kTiles;                // K steps of 32
  // K_CHUNKED: the share of K this dispatch adds up, k in [kBegin, kBegin + kLength).
  uint kBegin, kLength;
  // The pack's last items: it zeroes the output's first outputZeroWords
  // int32 for the K_SPLIT GEMM after it (one command fewer than a fill).
  uint outputZeroWords;
  uint packedBSlot;
  // K_SPLIT_ZEROES: where the tiles' counters start in the binding table's
  // memory, in bytes from its start (tableCountersOffset, core/plan.hpp).
  uint tileCounters;
};

// ConvParams.flags.
const uint HAS_INPUT_ZERO_POINT = 1u;
const uint HAS_FILTER_ZERO_POINT = 2u;
const uint INPUT_SIGNED_FLAG = 4u;       // INT8 input (the cooperative-matrix kernel reads signedness here)
const uint FILTER_SIGNED_FLAG = 8u;      // INT8 filter
// W stride 1, x stride 1, and OW % 4 == 0 or (a 1x1 kernel over every pixel
// in order) an image's rows back to back with H * W % 4 == 0: 4
// consecutive m from a multiple of 4 are 4 consecutive bytes.
const uint INPUT_ROWS_CONTIGUOUS = 16u;
// Read by the cooperative-matrix kernel alone, whose flags are a
// specialization constant:
const uint TAPS_Y_IN_RANGE = 32u;       // every tap's y lies in [0, H): no padding along y
const uint TAPS_X_IN_RANGE = 64u;       // likewise along x
const uint FILTER_K_CONTIGUOUS = 128u;  // a filter row's k are consecutive bytes
const uint K_WHOLE_STEPS = 256u;        // Kg is a multiple of the kernel's K step (32)
// The output's m (W stride 1, N and C strides multiples of 4, and either
// OW % 4 == 0 with an H stride a multiple of 4, or an image's rows back to
// back, H stride OW, with OH * OW % 4 == 0): 4 consecutive m from a
// multiple of 4 are 4 consecutive, 16-byte aligned int32 (given an aligned
// base).
const uint OUTPUT_M_QUADS = 512u;
const uint K_TWO_STEPS = 1024u;  // Kg takes exactly two K steps of the kernel
// How the host split the work where one invocation's loops would run too
// long (runtime/ops/convolution_integer_tiles.cpp, splitGemm), for both kernels
// specialization constants (0 as always elsewhere): K_CHUNKED, the dispatch
// takes a chunk of K (ConvParams.kBegin, kLength), one dispatch per chunk;
// ACCUMULATE, it adds its sums to the output's values (a later chunk: 32-bit
// two's complement, the total is the exact sum modulo 2^32 however K is
// split); GRID_ROWS, its workgroups come in rows (groupIndex), for huge
// tile counts.
const uint ACCUMULATE = 2048u;
const uint K_CHUNKED = 4096u;
const uint GRID_ROWS = 8192u;
const uint SPLIT_FLAGS = K_CHUNKED | ACCUMULATE | GRID_ROWS;
// The cooperative-matrix kernel alone: K split across the grid's y, chunk
// gl_WorkGroupID.y taking k in [y * kLength, (y + 1) * kLength), each
// workgroup adding its share into the output (zeroed by the dispatch
// before) with 32-bit atomics: exact, as the sum modulo 2^32 does not depend
// on order.
const uint K_SPLIT = 16384u;
// Read by the pack alone (set in its constants only, for A by rows): W
// stride 1 and rows of whole words from 4-byte aligned addresses
// (N, C, H strides and W multiples of 4), so that an aligned word of a row
// lies wholly inside it or in its padding.
const uint INPUT_WORD_ROWS = 32768u;
// The cooperative-matrix GEMM alone, where A comes as the im2col matrix
// (A_IM2COL) and the filter is no owned one: its K steps are the filter's
// rows as they lie (FILTER_K_CONTIGUOUS, K_WHOLE_STEPS, rows and binding
// 16-byte aligned), so the GEMM stages B from the filter itself, flipping
// it as it loads, and the pack packs A alone.
const uint B_FROM_FILTER = 65536u;
// The cooperative-matrix GEMM alone, where A comes in scratch and K is not
// split across the grid (K_SPLIT): two K steps side by side in each shared
// row (VKDML_COOPMAT_ROW4), one barrier per pair of steps, the next pair
// stored while other warps multiply (shaders/coopmat/multiply.glsl).
const uint K_PAIRED_ROWS = 131072u;
// The cooperative-matrix GEMM alone, where it gathers A: x stride 2 over
// rows of whole words (W stride 1, 4-byte aligned, as INPUT_WORD_ROWS), a
// kernel 1 wide without x padding, OW % 4 == 0 and 2 * OW <= W: the 4 input
// bytes of 4 consecutive m from a multiple of 4 are the even bytes of two
// aligned words.
const uint INPUT_ROWS_STRIDE2 = 262144u;
// The cooperative-matrix GEMM alone, with K_SPLIT: no dispatch zeroes the
// output before it. The first chunk of each tile to start zeroes the
// tile's outputs; the others wait for it before their atomic adds, and the
// last to finish leaves the tile's counters zero again (SPLIT_TILE_WORDS
// each, in the binding table's memory from ConvParams.tileCounters:
// shaders/coopmat/split.glsl). A wait is a loop on a word another running
// workgroup sets, which no CPU device gets (core/plan.hpp, kLoopBudget).
const uint K_SPLIT_ZEROES = 524288u;
const uint SPLIT_TILE_WORDS = 4u;  // arrivals, ready, done, unused
// The cooperative-matrix GEMM alone, with A_CHANNELS_LAST: A read from the
// input itself, whose channels lie innermost (C stride 1; the N, H and W
// strides and the binding 16-byte aligned; 32-bit offsets), each tap's
// range checked against the input (padding reads as the zero point); no
// pack writes it (shaders/coopmat/step.glsl).
const uint A_FROM_INPUT = 1048576u;
// The cooperative-matrix GEMM alone, A_CHANNELS_LAST over groups of a
// multiple of 64 channels where the K loop takes steps in pairs: each pair
// of K steps of a row is 64 consecutive bytes, loaded by 4 invocations side
// by side (a warp's load spans 8 rows, not 16) unless K is chunked, and
// stored into one shared row (K_PAIRED_ROWS) or two buffers
// (shaders/coopmat/step.glsl).
const uint A_PAIRED_CHUNKS = 2097152u;
// The output's channels (C stride 1; N, H and W strides multiples of 4;
// groups of a multiple of 4 output channels): 4 consecutive output channels
// from a multiple of 4 are 4 consecutive, 16-byte aligned int32 (given an
// aligned base), which the cooperative-matrix epilogue stores as one word
// where K is not split across the grid (shaders/coopmat/epilogue.glsl).
const uint OUTPUT_N_QUADS = 4194304u;
// The output's channels lie innermost (C stride 1): the cooperative-matrix
// epilogue's 4-byte stores and atomic adds (K split across the grid) run
// along them, each instruction 4 pixels' 8 consecutive channels, not 32
// pixels' one.
const uint OUTPUT_N_INNERMOST = 8388608u;
// The cooperative-matrix GEMM alone, on 4-warp tiles without K_PAIRED_ROWS:
// shared rows of 32 bytes, unpadded, and the epilogue's scratch sized for 4
// warps, so that a workgroup takes 11-13 KB of shared memory and three fit
// an SM where two did. The H200 gives a dispatch about 48 KiB per SM
// (bench/results/occupancy.md); the fragment loads meet bank conflicts in
// exchange, so the plan sets it only where there are more than two
// workgroups per SM to run.
const uint ROWS_UNPADDED = 16777216u;
// The flags of gathering A and B from the tensors, which the
// cooperative-matrix GEMM does not read where A comes in scratch (A_IM2COL,
// A_CHANNELS_LAST; the pack read them): the plan leaves them out of that
// GEMM's constants, with all of the geometry (channels-last A takes its
// taps' from ConvParams), so that layers of other shapes share its pipelines.
const uint GATHER_FLAGS =
    INPUT_ROWS_CONTIGUOUS | INPUT_ROWS_STRIDE2 | TAPS_Y_IN_RANGE | TAPS_X_IN_RANGE | FILTER_K_CONTIGUOUS |
    K_WHOLE_STEPS | K_TWO_STEPS;

// convolution_integer.comp: the tile shape.
#define VKDML_CONVOLUTION_INTEGER_CONSTANTS(X)                                                \
  X(WORKGROUP_SIZE, 0, workgroupX, 1) /* WG = (BM/TM) * (BN/TN) */                            \
  X(BM, 1, uint, 128)                 /* tile rows (output pixels) */                         \
  X(BN, 2, uint, 128)                 /* tile columns (output channels of the group) */       \
  X(BK, 3, uint, 64)                  /* tile depth, a multiple of 16 */                      \
  X(TM, 4, uint, 8)                   /* rows per invocation */                               \
  X(TN, 5, uint, 8)                   /* columns per invocation */                            \
  X(ROW, 6, uint, 20)                 /* words per shared tile row: BK/4 + padding (4 mod 8) */ \
  X(SPLIT, 7, uint, 0)                /* the flags of SPLIT_FLAGS (the others are in ConvParams) */

// convolution_integer_dot.comp: its register tiles. Each invocation owns
// TM x TN outputs, in groups of 4 consecutive rows and columns (one 16-byte
// shared read each); K steps of BK k are staged through shared memory twice
// over (double-buffered): 2 * (BM + BN) * BK bytes.
#define VKDML_CONVOLUTION_INTEGER_DOT_CONSTANTS(X)                 \
  X(WORKGROUP_SIZE, 0, workgroupX, 256) /* (BM/TM) * (BN/TN) */    \
  X(BM, 1, uint, 128)                   /* a multiple of TM */     \
  X(BN, 2, uint, 128)                   /* a multiple of TN */     \
  X(BK, 3, uint, 32)                    /* a multiple of 16 */     \
  X(TM, 4, uint, 8)                     /* a multiple of 4 */      \
  X(TN, 5, uint, 8)                     /* a multiple of 4 */      \
  X(SPLIT, 6, uint, 0)                  /* the flags of SPLIT_FLAGS */  \
  VKDML_CONVOLUTION_GEOMETRY(X, 7)
#define VKDML_DOT_SHARED_BYTES(bm, bn, bk) (2u * ((bm) + (bn)) * (bk))

// The geometry and the flags that the cooperative-matrix and dot-product
// kernels fold. The emulated cooperative-matrix kernel reads the geometry
// (kind param) and the PARAM_FLAGS from ConvParams instead, its constants
// left at their defaults (shaders/coopmat/tile.glsl).
#define VKDML_CONVOLUTION_GEOMETRY(X, first) \
  X(KH, first, param, 1)                     \
  X(KW, first + 1, param, 1)                 \
  X(STRIDE_Y, first + 2, param, 1)           \
  X(STRIDE_X, first + 3, param, 1)           \
  X(DILATION_Y, first + 4, param, 1)         \
  X(DILATION_X, first + 5, param, 1)         \
  X(PAD_Y, first + 6, param, 0)              \
  X(PAD_X, first + 7, param, 0)              \
  X(FLAGS, first + 8, uint, 0) /* ConvParams.flags */
// Those flags: the operands' types and zero points, the taps' range checks
// and the output's stores, each a choice between a few instructions rather
// than code paths.
const uint PARAM_FLAGS = HAS_INPUT_ZERO_POINT | HAS_FILTER_ZERO_POINT | INPUT_SIGNED_FLAG | FILTER_SIGNED_FLAG |
                         TAPS_Y_IN_RANGE | TAPS_X_IN_RANGE | OUTPUT_M_QUADS | OUTPUT_N_QUADS |
                         OUTPUT_N_INNERMOST;

// convolution_integer_coopmat.comp.
#define VKDML_CONVOLUTION_INTEGER_COOPMAT_CONSTANTS(X) \
  X(WORKGROUP_SIZE, 0, workgroupX, 256)                \
  VKDML_CONVOLUTION_GEOMETRY(X, 1)                     \
  X(A_PACKING, 10, uint, 0) /* PACKED: how A comes, beside the packed B (A_GATHERED, ...) */

// convolution_integer_pack.comp: its workgroup, and its constants. A tile
// of the channels-last input (or of a 1x1 kernel's im2col matrix from words)
// takes two invocations per pixel. Where A goes channels-last, tiles of 32
// pixels (four times the workgroups) ran faster than of 128; for the im2col
// matrix and the stem's rows, smaller workgroups ran slower
// (bench/results/pack_pass.md).
const uint PACK_WORKGROUP = 256u;
const uint PACK_WORKGROUP_CHANNELS_LAST = 64u;
#define VKDML_CONVOLUTION_INTEGER_PACK_CONSTANTS(X) \
  X(WORKGROUP_SIZE, 0, workgroupX, 1)               \
  X(BM, 1, uint, 128)                               \
  X(BN, 2, uint, 256)                               \
  VKDML_CONVOLUTION_GEOMETRY(X, 3)                  \
  X(OUTPUT_H, 12, uint, 1)                          \
  X(OUTPUT_W, 13, uint, 1)                          \
  X(INPUT_H, 14, uint, 1)                           \
  X(INPUT_W, 15, uint, 1)                           \
  X(KG, 16, uint, 1) /* groupK */                   \
  X(M_TILES, 17, uint, 1)                           \
  X(N_TILES, 18, uint, 1)                           \
  X(A_PACKING, 19, uint, 0)                         \
  X(CHANNEL_RUN, 20, uint, 32) /* the PLANE_WORDS variant's channels per tile */

// How the cooperative-matrix GEMM with packed operands (PACKED) takes A,
// and what convolution_integer_pack.comp writes for it before B's blocks
// (A_PACKING): A_GATHERED, nothing (the GEMM gathers A from the input);
// A_IM2COL, the im2col matrix in blocks of [BM rows][32 bytes] per (group,
// m tile, K step); A_CHANNELS_LAST, the input reordered [N][Hp][Wp][C]
// (channels innermost) over the padded extent that the taps reach (padding
// holds the input zero point), for groups of a multiple of 32 channels.
// There k runs (ky, kx, c), c innermost, in A and in B's blocks alike, so
// each K step of 32 lies in one tap and a row's step is 32 consecutive
// bytes of one pixel.
// The extent of the padded input along one dimension (Hp, Wp): from the
// first output's first tap to the last output's last (in the operands'
// type: 64-bit on the host, which checks the sizes built from it).
#define VKDML_PADDED_EXTENT(outputSize, stride, kernel, dilation) \
  (((outputSize) - 1u) * (stride) + ((kernel) - 1u) * (dilation) + 1u)
const uint A_GATHERED = 0u;
const uint A_IM2COL = 1u;
const uint A_CHANNELS_LAST = 2u;
// Whether the pack takes channels-last B (k = tap * C + c) from spans of a
// dense filter (FILTER_K_CONTIGUOUS: a row's k run (c, ky, kx)) of at most
// PACK_SPAN_TAPS taps: one item per 16 channels of a row reads their
// 16 * taps consecutive bytes and writes one chunk per tap, instead of 16
// byte gathers a taps apart per chunk.
const uint PACK_SPAN_TAPS = 9u;
// Whether the pack writes the im2col matrix (A_IM2COL) of at most
// PACK_ROW_STEPS K steps and PACK_ROW_MIN_TILES m tiles or more a row per
// item, every k's (c, ky, kx) a constant (the stem at batch 32), instead of
// a 16-byte chunk per item. With fewer rows (fewer, longer items) it was
// slower (bench/results/pack_pass.md).
const uint PACK_ROW_STEPS = 8u;
const uint PACK_ROW_MIN_TILES = 2048u;
#define VKDML_PACK_A_ROWS(aPacking, kSteps, mTiles) \
  ((aPacking) == A_IM2COL && (kSteps) <= PACK_ROW_STEPS && (mTiles) >= PACK_ROW_MIN_TILES)
#define VKDML_PACK_B_SPANS(aPacking, taps, flags) \
  ((aPacking) == A_CHANNELS_LAST && (taps) > 1u && (taps) <= PACK_SPAN_TAPS && ((flags) & FILTER_K_CONTIGUOUS) != 0u)

// The cooperative-matrix kernel's tile: 8 warps of 32 lanes (WARPS_M along
// m, WARPS_N along n), each COOPMAT_FM x FN fragments of 16x16, K steps of
// COOPMAT_BK; BN = FN * 64 is the variant's (64, 128 or 256; of 64 the
// first 2 * BN invocations stage B). The _w4 variants
// take 4 warps (2 x 2) of 4 x 2 fragments, BN = 64; their invocations
// stage twice the A of 8 warps'. The _w4_m64 variants take the same 4 warps
// of 2 x 2 fragments, tiles of 64 x 64, where A is gathered or comes
// channels-last and they take no more waves than the tiles they replace
// (batch 1): each invocation stages one A quad or chunk. The _m96 variants take 8 warps of 3 x 2
// fragments, tiles of 96 x 128, where 128-row tiles would leave more of a
// GPU idle (convolution_integer_plan.cpp); A comes in scratch, its 192
// chunks staged by the first 192 invocations. The _w16 variants take 16
// warps (4 x 4) of 4 x 2 fragments, tiles of 256 x 128: a workgroup of 512
// invocations fits one SM only within 128 registers, so twice the warps of
// 8 run per SM (bench/results/occupancy.md); the first 2 * BN invocations
// stage B.
const uint COOPMAT_WARPS_M = 2u;
const uint COOPMAT_WARPS_N = 4u;
const uint COOPMAT_FM = 4u;  // so that BM * BK / 16 A quads = one per invocation of 8 or 16 warps, two of 4
#define VKDML_COOPMAT_WARPS_M(warps) ((warps) == 16u ? 4u : COOPMAT_WARPS_M)
#define VKDML_COOPMAT_ROWS(warps, fm) ((fm) * 16u * VKDML_COOPMAT_WARPS_M(warps))
#define VKDML_COOPMAT_BM(warps) VKDML_COOPMAT_ROWS(warps, COOPMAT_FM)
const uint COOPMAT_SHORT_FM = 3u;  // the _m96 variants' FM
const uint COOPMAT_HALF_FM = 2u;   // the _w4_m64 variants' FM
const uint COOPMAT_WORKGROUP = 32u * COOPMAT_WARPS_M * COOPMAT_WARPS_N;
const uint COOPMAT_SUBGROUP = 32u;  // the NV variants' warps are subgroups
const uint COOPMAT_BM = VKDML_COOPMAT_BM(8u);
const uint COOPMAT_BK = 32u;  // tile depth: one fragment K
// Tiles run in bands of this many m tiles, n slowest within a band.
const uint COOPMAT_TILE_BAND = 8u;
// uvec4 per shared row: 32 bytes + 16 of padding, 12 words (4 mod 8), so the
// 16-byte row reads of a fragment load fall in distinct banks; with
// K_PAIRED_ROWS two steps, 64 bytes + 16, 20 words (4 mod 8) likewise.
const uint COOPMAT_ROW4 = COOPMAT_BK / 16u + 1u;
#define VKDML_COOPMAT_ROW4(pairedRows) (COOPMAT_ROW4 + ((pairedRows) ? COOPMAT_BK / 16u : 0u))
// max() as an expression of specialization constants may take (GLSL).
#define VKDML_MAX(a, b) ((a) > (b) ? (a) : (b))
// The epilogue's per-warp scratch: 32 m x 16 n int32 (2 fragments),
// column-major, columns 40 words apart: the 16-byte stores' reads (8 lanes
// per column, 4 columns) then fall in distinct banks.
const uint COOPMAT_SCRATCH_COLUMN4 = 10u;
// Or, where each lane stores 4 channels of a pixel (OUTPUT_N_QUADS),
// row-major, rows 20 words apart: the fragments' stores and the lanes'
// 16-byte reads of a row's 4 channels then fall in distinct banks (the
// column-major reads of 4 channels took 4 lanes to a bank). The same bytes.
const uint COOPMAT_SCRATCH_ROW4 = 5u;
// Shared memory for `warps` warps of tiles BN wide: the uvec4 array `tiles`
// (two stages of A and B rows, or the epilogue's scratch, sized for at
// least 8 warps), then rowSums[BM], colSums[BN] and colZeroPoints[BN].
#define VKDML_COOPMAT_TILES4(warps, BN, pairedRows)                                               \
  VKDML_MAX(2u * (VKDML_COOPMAT_BM(warps) + (BN)) * VKDML_COOPMAT_ROW4(pairedRows),              \
            VKDML_MAX(warps, 8u) * 16u * COOPMAT_SCRATCH_COLUMN4)
#define VKDML_COOPMAT_SHARED_BYTES(warps, BN, pairedRows) \
  (16u * VKDML_COOPMAT_TILES4(warps, BN, pairedRows) + 4u * (VKDML_COOPMAT_BM(warps) + 2u * (BN)))

#ifdef __cplusplus
// Each kernel declares its own constants (GLSL); the host has them all.
VKDML_SPECIALIZATION(ConvolutionIntegerConstants, VKDML_CONVOLUTION_INTEGER_CONSTANTS)
VKDML_SPECIALIZATION(ConvolutionIntegerDotConstants, VKDML_CONVOLUTION_INTEGER_DOT_CONSTANTS)
VKDML_SPECIALIZATION(ConvolutionIntegerCoopmatConstants, VKDML_CONVOLUTION_INTEGER_COOPMAT_CONSTANTS)
VKDML_SPECIALIZATION(ConvolutionIntegerPackConstants, VKDML_CONVOLUTION_INTEGER_PACK_CONSTANTS)

static_assert(sizeof(ConvParams) == 240, "std430 layout of ConvParams");
static_assert(offsetof(ConvParams, packedAOffset) % 8 == 0 && offsetof(ConvParams, kLength) == 220 &&
                  offsetof(ConvParams, outputZeroWords) == 224 && offsetof(ConvParams, packedBSlot) == 228 &&
                  offsetof(ConvParams, tileCounters) == 232,
              "std430 offsets of ConvParams");
static_assert(sizeof(PushConstants) == 16, "push constants: two device addresses");
static_assert(32 * COOPMAT_SCRATCH_ROW4 <= 16 * COOPMAT_SCRATCH_COLUMN4, "a warp's scratch, either layout");
constexpr uint coopmatSharedBytes(uint warps, uint bn, bool pairedRows = false) {
  return VKDML_COOPMAT_SHARED_BYTES(warps, bn, pairedRows);
}
constexpr uint coopmatWarpsM(uint warps) { return VKDML_COOPMAT_WARPS_M(warps); }
constexpr uint coopmatBM(uint warps, uint fm = COOPMAT_FM) { return VKDML_COOPMAT_ROWS(warps, fm); }
constexpr bool packBSpans(uint aPacking, uint taps, uint flags) { return VKDML_PACK_B_SPANS(aPacking, taps, flags); }
constexpr bool packARows(uint aPacking, uint kSteps, uint mTiles) { return VKDML_PACK_A_ROWS(aPacking, kSteps, mTiles); }
#endif

VKDML_INTERFACE_END

#endif
