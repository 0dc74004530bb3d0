// The int8 ceilings the convolutions are measured against, run by
// vkdml_bench's "coopmat peak" and "dot peak": bench/coopmat_peak.comp (the
// cooperative-matrix peak, then the GEMM's K loop built up piece by piece at
// the warp tiles of its 128 x 256 and 128 x 128 tiles) and bench/dot_peak.comp.
#pragma once

#include <string>
#include <vector>

#include "timing.hpp"  // volk.h before vkdml.hpp

namespace bench {

struct ProbeRun {
  std::string name, shape;
  double ns = 0, operations = 0;
};

// Each cooperative-matrix probe over 4096 workgroups of 256 invocations,
// then each but the first again over one workgroup per multiprocessor (as
// the GEMM runs; where the device counts them), nothing then to hide the
// barriers and latencies behind. The first is the peak that
// compare_torch.py reads (the first "coopmat" result).
std::vector<ProbeRun> coopmatProbes(vkdml::Device& device, Timer& timer, int warmup, int reps);

// The register-only packed-dot-product ceiling.
ProbeRun dotProbe(vkdml::Device& device, Timer& timer, int warmup, int reps);

}  // namespace bench
