// The copy limit (copy_limit.hpp).
#include "copy_limit.hpp"

#include <algorithm>
#include <cstdio>

#include "copy_limit.h"
#include "copy_limitWide.h"

namespace bench {

ComputeCopy::ComputeCopy(vkdml::Device& device, bool wide)
    : kernel_(device, wide ? kCopyLimitWideSpirv : kCopyLimitSpirv,
              wide ? sizeof kCopyLimitWideSpirv : sizeof kCopyLimitSpirv, 24),
      vectors_(wide ? 4 : 1) {}

void ComputeCopy::record(VkCommandBuffer cmd, const vkdml::Buffer& source, const vkdml::Buffer& destination,
                         uint64_t bytes, uint32_t maxGroups) const {
  struct {
    uint64_t source, destination;
    uint32_t count, pad;
  } push{source.address(), destination.address(), static_cast<uint32_t>(bytes / 16), 0};
  const uint64_t perGroup = 256ull * vectors_;
  kernel_.record(cmd, &push,
                 static_cast<uint32_t>(std::min<uint64_t>((push.count + perGroup - 1) / perGroup, maxGroups)));
}

uint32_t ComputeCopy::fullGrid(const vkdml::DeviceInfo& info, uint64_t bytes) const {
  const uint64_t perGroup = 256ull * vectors_;
  const uint64_t limit = info.maxComputeWorkGroupCountX ? info.maxComputeWorkGroupCountX : 65535;
  return static_cast<uint32_t>(std::min<uint64_t>((bytes / 16 + perGroup - 1) / perGroup, limit));
}

void copyProbe(vkdml::Device& device, Timer& timer, int warmup, int reps) {
  const uint64_t bytes = 1ull << 30;
  vkdml::Buffer source = device.createBuffer(bytes), destination = device.createBuffer(bytes);
  auto print = [&](const char* what, uint32_t groups, double ns) {
    std::printf("copy probe  %-34s %8u groups %9.1f us %8.1f GB/s\n", what, groups, ns / 1e3, 2.0 * bytes / ns);
  };
  const double transfer = timer.median(
      [&](VkCommandBuffer cmd) {
        VkBufferCopy region{0, 0, bytes};
        vkCmdCopyBuffer(cmd, source.handle(), destination.handle(), 1, &region);
      },
      warmup, reps);
  print("vkCmdCopyBuffer", 0, transfer);
  for (bool wide : {false, true}) {
    const ComputeCopy copy(device, wide);
    const uint32_t all = copy.fullGrid(device.info(), bytes);
    for (uint32_t groups = 1024; groups <= all; groups *= 2) {
      const double ns = timer.median([&](VkCommandBuffer cmd) { copy.record(cmd, source, destination, bytes, groups); },
                                     warmup, reps);
      print(wide ? "4 vectors per invocation and step" : "1 vector per invocation and step", groups, ns);
    }
  }
}

}  // namespace bench
