// What DML_CONVOLUTION_INTEGER's planner shares across its files: the
// command list (convolution_integer_plan.cpp), the tiles, loop models and
// splits of K (convolution_integer_tiles.cpp), the path and the packed
// operands (convolution_integer_paths.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "convolution_integer.hpp"
#include "interface/convolution_integer.h"
#include "operators.hpp"

namespace vkdml {
namespace detail {

// The parameter block, its flags and the kernels' specialization constants:
// shaders/interface/convolution_integer.h.
using shader::ConvParams;
using shader::coopmatSharedBytes;

// The shader's tile shape (its specialization constants).
struct TileShape {
  uint32_t bm, bn, bk, tm, tn;
  uint32_t workgroup() const { return (bm / tm) * (bn / tn); }
  // Words per shared row: BK/4 rounded so the row stride is 4 mod 8 words:
  // 16-byte reads of consecutive rows then hit distinct banks.
  uint32_t rowWords() const { return bk / 4 + ((bk / 4 + 4) % 8 == 4 ? 4 : 8); }
  uint32_t sharedBytes() const { return (bm + bn) * rowWords() * 4 + (bm + bn) * 4; }
};

// Tiles for this problem on this device (convolution_integer_tiles.cpp).
TileShape chooseTiles(uint32_t M, uint32_t Ng, uint32_t Kg, const DeviceInfo& device);

// The dot-product kernel (convolution_integer_dot.comp) takes GEMMs of at
// least kDotMinColumns columns: narrower ones (depthwise) would leave each
// invocation a gather per dot product, and run convolution_integer.comp
// with dot products instead, whose tiles go down to one column.
constexpr uint32_t kDotMinColumns = 16;
// Whether the dot-product path runs it (CompileOptions::dotKernel, else
// $VKDML_DOT_KERNEL, else by shape and device).
bool tiledDotKernel(const CompileOptions& options, const PlanDefaults& defaults, const DeviceInfo& device, uint32_t M,
                    uint32_t Ng, uint32_t Kg, bool contiguousRows);
// Its tile: $VKDML_DOT_TILE where set (defaults.dotTile), else chosen for
// the shape, the device and whether each tap of 4 rows of A is one aligned
// word (wordTaps); BK where the default leaves it 0. Throws Unsupported
// where the set tile does not fit the device.
TileShape chooseDotTiles(uint32_t M, uint32_t Ng, uint32_t Kg, const DeviceInfo& device, const PlanDefaults& defaults,
                         bool wordTaps);
// Why a tile is not one the kernel takes (its divisibility rules), or empty.
std::string dotTileInvalid(const TileShape& t);
constexpr uint32_t dotSharedBytes(const TileShape& t) {
  return VKDML_DOT_SHARED_BYTES(t.bm, t.bn, t.bk);
}

// The loops of a GEMM kernel (see kLoopBudget), mirroring the shader's:
// passes per pass of its K-step loop (which takes stepsPerPass steps at a
// time) and per tile besides that loop.
struct GemmLoops {
  uint64_t perPass = 0, perTile = 0;
  uint32_t stepsPerPass = 1;
  // One invocation's passes over `tiles` tiles of `steps` K steps each.
  uint64_t passes(uint64_t tiles, uint64_t steps) const {
    return loopPasses(tiles, perTile + loopPasses((steps + stepsPerPass - 1) / stepsPerPass, perPass));
  }
};

// The loop passes of a K split's zeros in a tile of bm x bn on `workgroup`
// invocations (shader::K_SPLIT_ZEROES, shaders/coopmat/split.glsl): rows,
// then each row's columns.
uint64_t splitZeroPasses(uint32_t bm, uint32_t bn, uint32_t workgroup);
// Whether the chunks of a K split zero its output (shader::K_SPLIT_ZEROES)
// where no pack does: a chunk may then wait on another running workgroup,
// which a CPU device may cut short (kLoopBudget), so Auto takes a fill there.
bool splitChunksZero(const DeviceInfo& device, const PlanDefaults& defaults);

// The loops of convolution_integer.comp and of convolution_integer_coopmat.comp
// (convolution_integer_tiles.cpp).
GemmLoops portableLoops(const TileShape& t, bool dot);
GemmLoops dotLoops(const TileShape& t);
GemmLoops coopmatLoops(uint32_t bn, uint32_t warps, bool emulated, bool packedB, bool prefetch,
                       const DeviceInfo::MatrixShape& fragment);

// How a GEMM of `tiles` tiles and `steps` K steps is dispatched so that no
// invocation's loops make more than kLoopBudget passes: as always where
// they fit (one dispatch, tiles spread over the widest 1-D grid), else with
// fewer tiles per workgroup (a 2-D grid), else in chunks of K, one dispatch
// each (the first stores, the others add: ACCUMULATE).
struct GemmSplit {
  std::array<uint32_t, 3> groups{1, 1, 1};
  uint32_t chunkSteps = 0;  // K steps per dispatch; the last takes what is left
  uint32_t chunks = 1;
  uint64_t loopPasses = 0;  // of one invocation, in any of them
};
GemmSplit splitGemm(const GemmLoops& loops, uint64_t tiles, uint32_t steps, const DeviceInfo& device);

// Few tiles over a deep K (batch 1, late layers) leave most of a GPU idle:
// then the cooperative-matrix GEMM splits K across the grid's y
// (shader::K_SPLIT) into chunks of kSplitMinSteps K steps or more, aiming
// at kSplitTargetGroups workgroups, where one dispatch takes all of K
// anyway and the output is dense (a fill zeroes exactly its elements
// first). Measured on an H100 (bench/results/split_k.md): 2.4-2.6x faster for 1 to 8
// tiles of 16 K steps or more; in chunks of 2 steps slower from 14 tiles,
// or with 8 steps or fewer, where the fill and the atomic adds cost more
// than the idle SMs.
// Returns the K steps per chunk, or 0.
constexpr uint64_t kSplitMaxTiles = 8;
constexpr uint32_t kSplitMinTotalSteps = 12;
constexpr uint64_t kSplitTargetGroups = 256;
constexpr uint32_t kSplitMinSteps = 2;
// Up to kSplitWideMaxTiles tiles, in chunks of kSplitWideMinSteps or more:
// the 26-tile layers of 144 and 64 steps then ran 0.71x and 0.73x the time
// of 4-warp tiles over all of K (4-warp tiles split in chunks of 8, 16 or
// 32 steps were slower), 49 tiles of 72 steps 1.06x (bench/results/split_k.md).
constexpr uint64_t kSplitWideMaxTiles = 32;
constexpr uint32_t kSplitWideMinSteps = 16;
// Each output element takes one atomic add per chunk: 72 chunks of the 3x3
// 512->512 7x7 layer (2 tiles) ran 1.4x slower than 36 (bench/results/split_k.md).
constexpr uint64_t kSplitMaxChunks = 36;
// GEMMs of at most kNarrowTilesMaxRows rows (batch 1) split up to
// kSplitFewRowsMaxTiles tiles in chunks of kSplitMinSteps or more: each
// chunk's atomic adds cover few rows there. On the H200 every batch-1 layer
// this reached ran as fast or faster, up to 1.4x (bench/results/batch1_narrow_tiles.md).
// Such GEMMs may also take tiles of 64 columns for more than 64 output
// channels (the plan's narrowerTiles).
constexpr uint32_t kNarrowTilesMaxRows = 1024;
constexpr uint64_t kSplitFewRowsMaxTiles = 64;
// Up to kSplitPackedMaxRows rows, where A is packed with each execution
// (the pack zeroes the output: the split costs no fill) and K is too short
// for two chunks of kSplitWideMinSteps, K splits over up to
// kSplitFewRowsMaxTiles tiles in chunks of kSplitPackedMinSteps or more:
// faster for batch 1's 3x3 64->64 56x56 layer on an H100; slower in chunks
// of 2, where a fill would run instead, and for a longer K in short chunks
// (bench/results/split_k.md).
constexpr uint32_t kSplitPackedMaxRows = 4096;
constexpr uint32_t kSplitPackedMinSteps = 4;
// At most this many tiles of 256 columns take tiles of 128 instead (where
// K is not split): on the H100 (132 SMs) 4-warp tiles of 128 ran faster at
// 26 and 49 tiles over all of K, slower at 98 and more, and slower where
// they make no more tiles (bench/results/split_k.md); 8-warp ones are
// faster still (bench/results/four_warp_tiles.md).
constexpr uint64_t kFewTilesMax = 64;
// Where A is gathered, at least this many 8-warp tiles of 128 columns take
// 16-warp tiles of 256 x 128 instead: on the H100 they ran 1.28x faster at
// 784 such tiles, slower at 196 and 25 (bench/results/occupancy.md).
constexpr uint64_t kSixteenWarpsMinTiles = 512;
// Where the device says how many multiprocessors it has
// (DeviceInfo::multiprocessors), the wide split (more than kSplitMaxTiles
// tiles, not few rows) takes, in chunks of kSplitWaveMinSteps or more, the
// chunk count of the least cost waves x (kSplitWaveSteps + steps per
// chunk), a wave being one workgroup per multiprocessor (the 8-warp tiles'
// registers allow one). Each wave pays, besides its K steps, about what
// kSplitWaveSteps steps take (its workgroups' prologue and epilogue, which
// one workgroup per SM does not overlap with another's K loop): on the
// H200 (132 SMs) the 26-tile layers of 144 steps ran in 0.76x the time in 5
// chunks (130 workgroups, one wave) as in 9 (two), and the chunk lengths
// tried, 8 to 144 steps, ranked as this cost ranks them
// (bench/results/split_k.md).
constexpr uint64_t kSplitWaveSteps = 18;
constexpr uint32_t kSplitWaveMinSteps = 8;
uint32_t parallelChunkSteps(const GemmSplit& split, uint64_t tiles, uint32_t steps, const TensorInfo& output,
                            uint32_t rows, bool packsA, const DeviceInfo& device);

// Where A is packed as the im2col matrix, a GEMM of at most this many m
// tiles stages B from a dense filter's rows rather than from B's blocks, so
// that the pack does not copy the filter for the one or two workgroups that
// read each of its steps. Each row's step is then a 32-byte read of its
// own, four times the cache lines per warp load of a block's: on the H200
// batch 1's layers of 49 and 196 rows ran up to 0.8 µs faster, of 784 rows
// 0.6 µs slower, batch 32's slower still, and the 8192^3 GEMM 1.23x
// (bench/results/pack_pass.md).
constexpr uint32_t kFilterRowsMaxMTiles = 2;

// The path a compile takes and the operands packed first (convolution_integer_paths.cpp).
ConvolutionPath choosePath(const CompileOptions& options, const PlanDefaults& defaults, const DeviceInfo& device,
                           uint32_t M, uint32_t Ng, uint32_t Kg, bool contiguousRows, bool operandsPack);
// The cooperative-matrix kernel's fragment shape (FRAG_M x FRAG_N x FRAG_K,
// shaders/coopmat/fragments.glsl) on a cooperative-matrix `path`: the KHR
// path's first of kFragmentShapes the device lists, else 16x16x32; or
// CompileOptions.matrixShape, checked.
DeviceInfo::MatrixShape coopmatFragment(ConvolutionPath path, const CompileOptions& options, const DeviceInfo& device);
ConvolutionPacking choosePacking(const CompileOptions& options, const PlanDefaults& defaults, bool contiguousRows,
                                 uint32_t M, uint32_t Ng, uint32_t Kg, bool oneByOne, bool channelsLastSteps,
                                 bool filterOwned, bool squareTiles, bool inputChannelsLast);

}  // namespace detail
}  // namespace vkdml
