// The copy limit the data-movement cases are measured against: a plain
// compute-shader copy (bench/copy_limit.comp), and (--copy-probe) how that
// limit moves with the grid and the vectors each invocation copies.
#pragma once

#include <cstdint>

#include "timing.hpp"  // volk.h before vkdml.hpp

namespace bench {

// A plain compute-shader copy through device addresses: on some drivers
// (NVIDIA's) vkCmdCopyBuffer runs far below the memory's bandwidth.
class ComputeCopy {
 public:
  // wide: 4 vectors per invocation and step, else 1.
  explicit ComputeCopy(vkdml::Device& device, bool wide = false);
  // Copies bytes / 16 vectors (the bytes a multiple of 16, below 2^35) over
  // at most maxGroups workgroups of 256 invocations.
  void record(VkCommandBuffer cmd, const vkdml::Buffer& source, const vkdml::Buffer& destination, uint64_t bytes,
              uint32_t maxGroups = 8192) const;
  // The grid that gives each invocation its own vectors (one step each),
  // within the device's workgroup count.
  uint32_t fullGrid(const vkdml::DeviceInfo& info, uint64_t bytes) const;

 private:
  RawKernel kernel_;
  uint32_t vectors_;
};

// Times copies of 1 GiB into another 1 GiB: vkCmdCopyBuffer, then each
// kernel over grids of 1024 workgroups to one vector per invocation, and
// prints GB/s (bytes read + written).
void copyProbe(vkdml::Device& device, Timer& timer, int warmup, int reps);

}  // namespace bench
