// The int8 ceilings (probes.hpp): each probe a kernel of its own, its
// multiply-adds counted per workgroup and iteration.
#include "probes.hpp"

#include <algorithm>

#include "coopmat_peak.h"
#include "coopmat_peakNarrow.h"
#include "coopmat_peakNarrowBarrier.h"
#include "coopmat_peakNarrowCopyAfter.h"
#include "coopmat_peakNarrowCopyFirst.h"
#include "coopmat_peakNarrowGlobal1.h"
#include "coopmat_peakNarrowGlobal2.h"
#include "coopmat_peakNarrowLoads.h"
#include "coopmat_peakNarrowPaired.h"
#include "coopmat_peakNarrowStaged.h"
#include "coopmat_peakWarpTile.h"
#include "coopmat_peakWarpTileBarrier.h"
#include "coopmat_peakWarpTileCopyAfter.h"
#include "coopmat_peakWarpTileCopyFirst.h"
#include "coopmat_peakWarpTileGlobal1.h"
#include "coopmat_peakWarpTileGlobal2.h"
#include "coopmat_peakWarpTileLoads.h"
#include "coopmat_peakWarpTileStaged.h"
#include "dot_peak.h"

namespace bench {

namespace {

struct PeakProbe {
  const char* name;
  const char* shape;
  const uint32_t* spirv;
  size_t spirvBytes;
  uint32_t accumulators;  // per subgroup and iteration
};
const PeakProbe kPeakProbes[] = {
    {"peak: register-only int8 multiply-adds", "16x16x32, 8 accumulators per subgroup", kCoopmatPeakSpirv,
     sizeof kCoopmatPeakSpirv, 8},
    {"peak: the GEMM's 64x64 warp tile", "4x4 fragments per K step", kCoopmatPeakWarpTileSpirv,
     sizeof kCoopmatPeakWarpTileSpirv, 16},
    {"peak: the warp tile, a barrier per K step", "4x4 fragments, then barrier()", kCoopmatPeakWarpTileBarrierSpirv,
     sizeof kCoopmatPeakWarpTileBarrierSpirv, 16},
    {"peak: the warp tile, fragments from shared", "4x4 fragments loaded, barrier()", kCoopmatPeakWarpTileLoadsSpirv,
     sizeof kCoopmatPeakWarpTileLoadsSpirv, 16},
    {"peak: the warp tile, rows staged too", "4x4 loaded, rows stored, barrier()", kCoopmatPeakWarpTileStagedSpirv,
     sizeof kCoopmatPeakWarpTileStagedSpirv, 16},
    {"peak: the 64x32 warp tile (128x128 tiles)", "4x2 fragments per K step", kCoopmatPeakNarrowSpirv,
     sizeof kCoopmatPeakNarrowSpirv, 8},
    {"peak: the 64x32 warp tile, a barrier", "4x2 fragments, then barrier()", kCoopmatPeakNarrowBarrierSpirv,
     sizeof kCoopmatPeakNarrowBarrierSpirv, 8},
    {"peak: the 64x32 warp tile, from shared", "4x2 fragments loaded, barrier()", kCoopmatPeakNarrowLoadsSpirv,
     sizeof kCoopmatPeakNarrowLoadsSpirv, 8},
    {"peak: the 64x32 warp tile, rows staged", "4x2 loaded, rows stored, barrier()", kCoopmatPeakNarrowStagedSpirv,
     sizeof kCoopmatPeakNarrowStagedSpirv, 8},
    {"peak: the warp tile, rows from L2, 1 ahead", "4x4, rows loaded 1 step ahead", kCoopmatPeakWarpTileGlobal1Spirv,
     sizeof kCoopmatPeakWarpTileGlobal1Spirv, 16},
    {"peak: the warp tile, rows from L2, 2 ahead", "4x4, rows loaded 2 steps ahead", kCoopmatPeakWarpTileGlobal2Spirv,
     sizeof kCoopmatPeakWarpTileGlobal2Spirv, 16},
    {"peak: the 64x32 warp tile, from L2, 1 ahead", "4x2, rows loaded 1 step ahead", kCoopmatPeakNarrowGlobal1Spirv,
     sizeof kCoopmatPeakNarrowGlobal1Spirv, 8},
    {"peak: the 64x32 warp tile, from L2, 2 ahead", "4x2, rows loaded 2 steps ahead", kCoopmatPeakNarrowGlobal2Spirv,
     sizeof kCoopmatPeakNarrowGlobal2Spirv, 8},
    {"peak: the 64x32 warp tile, from L2, in pairs", "4x2, a pair of rows per barrier", kCoopmatPeakNarrowPairedSpirv,
     sizeof kCoopmatPeakNarrowPairedSpirv, 8},
    {"peak: the warp tile, rows copied, then multiplies", "4x4, next rows global->shared first",
     kCoopmatPeakWarpTileCopyFirstSpirv, sizeof kCoopmatPeakWarpTileCopyFirstSpirv, 16},
    {"peak: the warp tile, multiplies, then rows copied", "4x4, next rows global->shared after",
     kCoopmatPeakWarpTileCopyAfterSpirv, sizeof kCoopmatPeakWarpTileCopyAfterSpirv, 16},
    {"peak: the 64x32 warp tile, rows copied first", "4x2, next rows global->shared first",
     kCoopmatPeakNarrowCopyFirstSpirv, sizeof kCoopmatPeakNarrowCopyFirstSpirv, 8},
    {"peak: the 64x32 warp tile, rows copied after", "4x2, next rows global->shared after",
     kCoopmatPeakNarrowCopyAfterSpirv, sizeof kCoopmatPeakNarrowCopyAfterSpirv, 8},
};

// Runs a probe (`groups` workgroups of 256 invocations, each writing its
// results to a buffer; 2048 iterations at 4096 workgroups, as many in all
// at fewer, within 65535 each) and returns its median ns; `operations` is
// what it did, `opsPerGroupIteration` per workgroup and iteration.
ProbeRun runProbe(vkdml::Device& device, Timer& timer, int warmup, int reps, const uint32_t* spirv, size_t spirvBytes,
                  double opsPerGroupIteration, uint32_t groups) {
  RawKernel kernel(device, spirv, spirvBytes, 12);
  const uint32_t iterations = std::min<uint32_t>(2048u * 4096u / groups, 65535u);
  // The results, and from 4 MiB on the rows that the probes with global loads read.
  vkdml::Buffer results = device.createBuffer(std::max<uint64_t>(uint64_t(groups) * 256 * 4, 4u << 20) + (4u << 20));
  struct {
    uint64_t results;
    uint32_t iterations;
  } push{results.address(), iterations};
  ProbeRun run;
  run.operations = double(groups) * iterations * opsPerGroupIteration;
  run.ns = timer.median([&](VkCommandBuffer cmd) { kernel.record(cmd, &push, groups); }, warmup, reps);
  return run;
}

}  // namespace

std::vector<ProbeRun> coopmatProbes(vkdml::Device& device, Timer& timer, int warmup, int reps) {
  std::vector<ProbeRun> runs;
  for (uint32_t groups : {4096u, device.info().multiprocessors})
    for (const PeakProbe& probe : kPeakProbes) {
      if (groups == 0 || (groups != 4096 && &probe == &kPeakProbes[0])) continue;
      ProbeRun run = runProbe(device, timer, warmup, reps, probe.spirv, probe.spirvBytes,
                              8.0 /* subgroups */ * probe.accumulators * 2 * 16 * 16 * 32, groups);
      run.name = groups == 4096 ? probe.name : std::string(probe.name) + ", 1/SM";
      run.shape = probe.shape;
      runs.push_back(run);
    }
  return runs;
}

ProbeRun dotProbe(vkdml::Device& device, Timer& timer, int warmup, int reps) {
  ProbeRun run = runProbe(device, timer, warmup, reps, kDotPeakSpirv, sizeof kDotPeakSpirv,
                          256.0 * 8 /* accumulators */ * 2 * 4, 4096);
  run.name = "peak: register-only packed u8 x s8 dot products";
  run.shape = "OpSUDot, 8 accumulators per invocation";
  return run;
}

}  // namespace bench
