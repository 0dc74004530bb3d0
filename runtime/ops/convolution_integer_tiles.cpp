// DML_CONVOLUTION_INTEGER's tiles and loops (convolution_integer_plan.hpp):
// the portable and dot-product kernels' tile shapes, the loop models of the
// GEMM kernels (kLoopBudget), and how a GEMM's K is split: over dispatches where its
// loops would run too long, across the grid where few tiles would leave a
// GPU idle.
#include <algorithm>

#include "convolution_integer_plan.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr const char* kOp = kConvolutionIntegerOp;
}  // namespace

// Tiles for this problem on this device. Columns: the smallest power of two
// covering Ng (depthwise convolutions have Ng = 1), at most 128. Rows: 256
// invocations and up to 8x8 accumulators each, shrunk when M is small. Depth:
// up to 128, as deep as K needs and shared memory allows (for 128x128 tiles,
// BK = 64 within lavapipe's 32 KiB, 128 within an H200's 48 KiB).
// Invariants the shader relies on: WG = (BM/TM)*(BN/TN) is a multiple of BM,
// BK a multiple of 16.
TileShape chooseTiles(uint32_t M, uint32_t Ng, uint32_t Kg, const DeviceInfo& device) {
  uint32_t bn = 1;
  while (bn < Ng && bn < 128) bn *= 2;
  struct Shape {
    uint32_t bn, wn, tn, wm, tm;
  };
  static constexpr Shape kShapes[] = {{128, 16, 8, 16, 8}, {64, 16, 4, 16, 8}, {32, 8, 4, 32, 4}, {16, 8, 2, 32, 4},
                                      {8, 8, 1, 32, 4},    {4, 4, 1, 64, 2},   {2, 2, 1, 128, 1}, {1, 1, 1, 256, 1}};
  Shape s = *std::find_if(std::begin(kShapes), std::end(kShapes), [&](const Shape& x) { return x.bn == bn; });
  while (s.wm * s.tm / 2 >= M && s.wm * s.tm > 1) {  // fewer rows (TM first) for few output pixels
    if (s.tm > 1)
      s.tm /= 2;
    else
      s.wm /= 2;
  }
  // The deepest BK that fits and pads K by at most 1/8 more than BK = 16
  // would (a 7x7x3 stem has K = 147: BK = 32 runs 160, BK = 128 would run 256).
  const uint32_t shared = device.maxComputeSharedMemorySize ? device.maxComputeSharedMemorySize : 16384;
  auto padded = [&](uint32_t bk) { return (uint64_t(Kg) + bk - 1) / bk * bk; };
  TileShape t{s.wm * s.tm, s.bn, 16, s.tm, s.tn};
  for (uint32_t bk = 32; bk <= 128; bk *= 2) {
    TileShape deeper = t;
    deeper.bk = bk;
    if (deeper.sharedBytes() <= shared && padded(bk) * 8 <= padded(16) * 9) t = deeper;
  }
  // Vulkan guarantees 16 KiB of shared memory; the largest tiles at BK = 16 take 13 KiB.
  return t;
}

// The dot-product kernel's tiles: 256 invocations, 8x8 accumulators each
// over 128 columns, narrower column tiles with more rows below that (down
// to 16 columns), fewer rows (invocations first) for few
// output pixels, down to kDotMinWorkgroup invocations (smaller ones would
// each stage many chunks of B). Depth: the deepest of 16, 32 and 64 that
// fits shared memory (double-buffered), pads K by at most 1/8 more than 16
// would, and leaves each invocation at most kDotMaxItems chunks of A and of
// B to stage per K step (their loads are unrolled and held in registers
// through the step's products, beside the accumulators; more also make
// lavapipe's compiles long).
namespace {
constexpr uint32_t kDotMinWorkgroup = 64;
constexpr uint32_t kDotMaxItems = 1;
constexpr uint64_t kDotWideMinTiles = 512;

uint32_t dotDepth(TileShape t, uint32_t Kg, uint32_t shared) {
  auto padded = [&](uint32_t bk) { return (uint64_t(Kg) + bk - 1) / bk * bk; };
  uint32_t depth = 16;
  for (uint32_t bk = 32; bk <= 64; bk *= 2) {
    t.bk = bk;
    const uint32_t wg = t.workgroup(), kq = bk / 16;
    const bool fewItems = (t.bm * kq + wg - 1) / wg <= kDotMaxItems && (t.bn * kq + wg - 1) / wg <= kDotMaxItems;
    if (dotSharedBytes(t) <= shared && padded(bk) * 8 <= padded(16) * 9 && fewItems) depth = bk;
  }
  return depth;
}
}  // namespace

// Auto, as measured on ResNet-50's layers (bench/results/dot_path.md):
// GEMMs of at least 64 columns and a whole tile of rows (for fewer rows the
// portable kernel's K split keeps more of the GPU busy) whose K is 256 or
// deeper (a stem's 147 gathered k spend a tile staging), or on GPUs whose
// A comes as words (contiguous rows; lavapipe ran K = 64 faster on the
// portable kernel).
bool tiledDotKernel(const CompileOptions& options, const PlanDefaults& defaults, const DeviceInfo& device, uint32_t M,
                    uint32_t Ng, uint32_t Kg, bool contiguousRows) {
  if (Ng < kDotMinColumns) return false;
  const DotKernel kernel = options.dotKernel != DotKernel::Auto ? options.dotKernel : defaults.dotKernel;
  if (kernel != DotKernel::Auto) return kernel == DotKernel::Tiled;
  const bool gpu = device.type != VK_PHYSICAL_DEVICE_TYPE_CPU;
  return Ng >= 64 && M >= 128 && (Kg >= 256 || (contiguousRows && gpu));
}

TileShape chooseDotTiles(uint32_t M, uint32_t Ng, uint32_t Kg, const DeviceInfo& device, const PlanDefaults& defaults,
                         bool wordTaps) {
  const uint32_t shared = device.maxComputeSharedMemorySize ? device.maxComputeSharedMemorySize : 16384;
  if (defaults.dotTile[0] != 0) {
    TileShape t{defaults.dotTile[0], defaults.dotTile[1], defaults.dotTile[2], defaults.dotTile[3],
                defaults.dotTile[4]};
    if (t.bk == 0) t.bk = dotDepth(t, Kg, shared);
    if (dotSharedBytes(t) > shared)
      throwUnsupported(kOp, "VKDML_DOT_TILE",
                       concat("the tile ", t.bm, "x", t.bn, "x", t.bk, " takes ", dotSharedBytes(t),
                              " bytes of shared memory; ", device.name, " has ", shared));
    return t;
  }
  // Where A costs more than a word per k and 4 rows (gathered, or taps
  // shifted off word boundaries), 256 columns of 8x16, 64 deep, stage it
  // once for twice the columns, if that leaves enough tiles to fill a large
  // GPU several times over (a layer of 49 such tiles ran slower than with
  // 128 columns on the H100).
  const TileShape wide{128, 256, 64, 8, 16};
  const uint64_t wideTiles = (uint64_t(M) + wide.bm - 1) / wide.bm * ((uint64_t(Ng) + wide.bn - 1) / wide.bn);
  if (!wordTaps && Ng > 128 && wideTiles >= kDotWideMinTiles && dotSharedBytes(wide) <= shared) return wide;
  struct Shape {
    uint32_t bn, wn, tn, wm, tm;
  };
  static constexpr Shape kShapes[] = {{128, 16, 8, 16, 8}, {64, 16, 4, 16, 8}, {32, 8, 4, 32, 4}, {16, 4, 4, 64, 4}};
  Shape s = kShapes[3];
  for (const Shape& x : kShapes)
    if (Ng > x.bn / 2) {
      s = x;
      break;
    }
  while (s.wm * s.tm / 2 >= M && s.wm * s.wn >= 2 * kDotMinWorkgroup) s.wm /= 2;
  TileShape t{s.wm * s.tm, s.bn, 16, s.tm, s.tn};
  t.bk = dotDepth(t, Kg, shared);  // every shape fits Vulkan's least 16 KiB at BK = 16
  return t;
}

std::string dotTileInvalid(const TileShape& t) {
  if (t.tm == 0 || t.tn == 0 || t.tm % 4 != 0 || t.tn % 4 != 0) return "TM and TN must be multiples of 4";
  if (t.bm == 0 || t.bn == 0 || t.bm % t.tm != 0 || t.bn % t.tn != 0) return "BM and BN must be multiples of TM and TN";
  if (t.bk % 16 != 0 || t.bk > 256) return "BK must be 0 (chosen) or a multiple of 16 up to 256";
  if (t.workgroup() > 1024) return "the workgroup, (BM/TM) * (BN/TN), must be at most 1024";
  if (t.tm * t.tn > 256) return "TM * TN must be at most 256";
  return "";
}

// convolution_integer.comp, per K step: staging A (16 gathered bytes per
// chunk of k, a loop), staging B (likewise where it gathers), the zero-point
// sums and the multiplies (the portable path's loop over the 4 words of a
// chunk; the dot products' loops, like the epilogue's, are unrolled). Loops
// count whether or not their branch is taken: lavapipe runs branches that no
// lane takes, masked.
GemmLoops portableLoops(const TileShape& t, bool dot) {
  const uint64_t wg = t.workgroup(), kq = t.bk / 16;
  auto ceil = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
  GemmLoops loops;
  loops.perPass = loopPasses(ceil(kq, wg / t.bm), loopPasses(16)) +
                  loopPasses(ceil(t.bn * kq, wg), loopPasses(16) + loopPasses(4)) +
                  loopPasses(ceil(t.bm + t.bn, wg), 2 * loopPasses(kq)) + loopPasses(kq, dot ? 0 : loopPasses(4));
  return loops;
}

// convolution_integer_dot.comp: per K step its loop over chunks of 16 k,
// and with each load of B (one per step, one more per tile) the byte loops
// of its gathered chunks; all other loops are unrolled.
GemmLoops dotLoops(const TileShape& t) {
  const uint64_t wg = t.workgroup(), kq = t.bk / 16, bItems = (t.bn * kq + wg - 1) / wg;
  GemmLoops loops;
  loops.perTile = bItems * loopPasses(16);
  loops.perPass = loopPasses(kq) + bItems * loopPasses(16);
  return loops;
}

// convolution_integer_coopmat.comp: per K step, B's byte loops where it is
// gathered (not packed) and, emulated, the loops over fragments (the matrix
// operations are unrolled; with cooperative matrices every fragment loop
// is); per tile, the first step's loads and the emulated epilogue's loops
// over fragments. Prefetching packed steps (PREFETCH = 3), the step loop
// takes 3 steps per pass through an inner loop (it may leave early, so it
// counts although it is marked [[unroll]]).
constexpr uint32_t kPrefetchSteps = 3;  // PREFETCH of the _p3 variants
uint64_t splitZeroPasses(uint32_t bm, uint32_t bn, uint32_t workgroup) {
  const uint32_t rowLanes = workgroup >= bm ? workgroup / bm : 1, rows = workgroup / rowLanes;
  return loopPasses((bm + rows - 1) / rows, loopPasses((bn + rowLanes - 1) / rowLanes));
}

bool splitChunksZero(const DeviceInfo& device, const PlanDefaults& defaults) {
  using SplitZeros = PlanDefaults::SplitZeros;
  return defaults.splitZeros == SplitZeros::Chunks ||
         (defaults.splitZeros == SplitZeros::Auto && device.type != VK_PHYSICAL_DEVICE_TYPE_CPU);
}

GemmLoops coopmatLoops(uint32_t bn, uint32_t warps, bool emulated, bool packedB, bool prefetch,
                       const DeviceInfo::MatrixShape& fragment) {
  const uint64_t fm = 4, fn = bn * shader::coopmatWarpsM(warps) / (16 * warps);
  const uint64_t bChunks = std::max<uint64_t>(bn * 2 / (32 * warps), 1);
  const uint64_t loadB = packedB ? 0 : bChunks * loopPasses(16);
  // Per 16x16x32 block, subM x subN fragments, subK deep (multiply.glsl).
  const uint64_t subM = 16 / fragment.m, subN = 16 / fragment.n, subK = 32 / fragment.k;
  const uint64_t multiply = emulated ? subK * loopPasses(fm, loopPasses(subM, loopPasses(fn, loopPasses(subN)))) : 0;
  GemmLoops loops;
  loops.perTile = loadB + (emulated ? loopPasses(fm / 2, loopPasses(fn)) : 0);
  loops.perPass = prefetch ? loopPasses(kPrefetchSteps, multiply) : loadB + multiply;
  loops.stepsPerPass = prefetch ? kPrefetchSteps : 1;
  return loops;
}

// As GemmSplit says (convolution_integer_plan.hpp).
GemmSplit splitGemm(const GemmLoops& loops, uint64_t tiles, uint32_t steps, const DeviceInfo& device) {
  GemmSplit s;
  s.groups = {gridGroups(tiles, 1, device), 1, 1};
  s.chunkSteps = steps;
  s.loopPasses = loops.passes(itemsPerGroup(tiles, s.groups), steps);
  if (s.loopPasses <= kLoopBudget) return s;
  // All of K in one dispatch, with as many tiles per workgroup as fit.
  const uint64_t oneTile = loops.passes(1, steps);  // = tile body + 2
  if (oneTile <= kLoopBudget) {
    s.groups = gridGroups2D(tiles, (kLoopBudget - 1) / (oneTile - 1), device);
    s.loopPasses = loops.passes(itemsPerGroup(tiles, s.groups), steps);
    if (s.loopPasses <= kLoopBudget) return s;
  }
  // Chunks of K, as long as the budget allows with the fewest tiles per
  // workgroup, evened out.
  s.groups = gridGroups2D(tiles, 1, device);
  const uint64_t perGroup = itemsPerGroup(tiles, s.groups);
  uint32_t most = 0;  // the most steps that fit: passes grow with steps
  for (uint32_t bit = uint32_t(1) << 31; bit; bit >>= 1)
    if (most + bit <= steps && loops.passes(perGroup, most + bit) <= kLoopBudget) most += bit;
  if (most == 0)
    throw Error(ErrorCode::Internal, kOp, "plan", concat(kOp, ": plan: one K step of a tile exceeds the loop budget"));
  s.chunks = (steps + most - 1) / most;
  s.chunkSteps = (steps + s.chunks - 1) / s.chunks;
  s.loopPasses = loops.passes(perGroup, s.chunkSteps);
  return s;
}

// Few tiles over a deep K: the K steps per chunk of a split across the grid
// (the rules and their measurements: convolution_integer_plan.hpp).
uint32_t parallelChunkSteps(const GemmSplit& split, uint64_t tiles, uint32_t steps, const TensorInfo& output,
                            uint32_t rows, bool packsA, const DeviceInfo& device) {
  const bool fewRows = rows <= kNarrowTilesMaxRows;
  const bool packedRows = !fewRows && rows <= kSplitPackedMaxRows && packsA && steps < 2 * kSplitWideMinSteps;
  if (split.chunks != 1 || split.groups[1] != 1 ||
      tiles > (fewRows || packedRows ? kSplitFewRowsMaxTiles : kSplitWideMaxTiles) || steps < kSplitMinTotalSteps ||
      output.footprintElements != output.elementCount || output.offsetAlignment % 4 != 0)
    return 0;
  const uint64_t minSteps = tiles <= kSplitMaxTiles || fewRows ? kSplitMinSteps
                            : packedRows                       ? kSplitPackedMinSteps
                                                               : kSplitWideMinSteps;
  const bool byWaves = tiles > kSplitMaxTiles && !fewRows && !packedRows && device.multiprocessors != 0;
  const uint64_t mostChunks = std::min<uint64_t>(steps / (byWaves ? kSplitWaveMinSteps : minSteps), kSplitMaxChunks);
  uint64_t chunks = std::min((kSplitTargetGroups + tiles - 1) / tiles, mostChunks);
  if (byWaves) {
    auto cost = [&](uint64_t n) {
      return (tiles * n + device.multiprocessors - 1) / device.multiprocessors *
             (kSplitWaveSteps + (steps + n - 1) / n);
    };
    chunks = 1;
    for (uint64_t n = 2; n <= mostChunks; ++n)
      if (cost(n) < cost(chunks)) chunks = n;
  }
  if (chunks < 2) return 0;
  return static_cast<uint32_t>((steps + chunks - 1) / chunks);
}

}  // namespace detail
}  // namespace vkdml
