// The benchmark's GPU timing (timestamp queries around each run) and its
// own kernels (SPIR-V embedded at build time, push constants only).
#pragma once

#include <volk.h>

#include <vkdml/vkdml.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace bench {

// A full barrier between runs of a case.
inline void fullBarrier(VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                          VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

// Runs `record` warmup + reps times in one submission, each run bracketed by
// timestamps and separated by a full barrier; returns the median in ns.
// After a pause of the GPU it first keeps it busy for warmMs (Options).
class Timer {
 public:
  Timer(vkdml::Device& device, int warmMs) : device_(device), warm_(warmMs) {}

  double median(const std::function<void(VkCommandBuffer)>& record, int warmup, int reps) {
    warmUp(record);
    VkDevice dev = device_.device();
    const uint32_t runs = static_cast<uint32_t>(warmup + reps);
    VkQueryPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    poolInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
    poolInfo.queryCount = 2 * runs;
    VkQueryPool pool = VK_NULL_HANDLE;
    vkCreateQueryPool(dev, &poolInfo, nullptr, &pool);
    device_.submitAndWait([&](VkCommandBuffer cmd) {
      vkCmdResetQueryPool(cmd, pool, 0, 2 * runs);
      for (uint32_t i = 0; i < runs; ++i) {
        fullBarrier(cmd);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 2 * i);
        record(cmd);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2 * i + 1);
      }
    });
    std::vector<uint64_t> stamps(2 * runs);
    vkGetQueryPoolResults(dev, pool, 0, 2 * runs, stamps.size() * 8, stamps.data(), 8,
                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    vkDestroyQueryPool(dev, pool, nullptr);
    std::vector<double> ns;
    for (uint32_t i = static_cast<uint32_t>(warmup); i < runs; ++i)
      ns.push_back(double(stamps[2 * i + 1] - stamps[2 * i]) * device_.info().timestampPeriodNs);
    std::sort(ns.begin(), ns.end());
    lastWork_ = Clock::now();
    return ns[ns.size() / 2];
  }

 private:
  using Clock = std::chrono::steady_clock;
  // Batches of runs, doubled while a batch takes under 50 ms, until the GPU
  // has been busy for warm_ (the gaps between batches are a host round trip).
  void warmUp(const std::function<void(VkCommandBuffer)>& record) {
    const auto start = Clock::now();
    if (warm_.count() <= 0 || (lastWork_ && start - *lastWork_ < std::chrono::milliseconds(500))) return;
    uint32_t batch = 1;
    for (auto now = start; now - start < warm_;) {
      device_.submitAndWait([&](VkCommandBuffer cmd) {
        for (uint32_t i = 0; i < batch; ++i) {
          fullBarrier(cmd);
          record(cmd);
        }
      });
      const auto end = Clock::now();
      if (end - now < std::chrono::milliseconds(50) && batch < (1u << 16)) batch *= 2;
      now = end;
    }
  }

  vkdml::Device& device_;
  std::chrono::milliseconds warm_;
  std::optional<Clock::time_point> lastWork_;
};

// A kernel of the benchmark's own (not vkdml's): SPIR-V embedded at build
// time, push constants only.
class RawKernel {
 public:
  template <size_t N>
  RawKernel(vkdml::Device& device, const uint32_t (&spirv)[N], uint32_t pushBytes)
      : RawKernel(device, spirv, sizeof spirv, pushBytes) {}
  RawKernel(vkdml::Device& device, const uint32_t* spirv, size_t bytes, uint32_t pushBytes)
      : device_(device.device()), pushBytes_(pushBytes) {
    VkShaderModuleCreateInfo module{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    module.codeSize = bytes;
    module.pCode = spirv;
    vkCreateShaderModule(device_, &module, nullptr, &module_);
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes};
    VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout.pushConstantRangeCount = 1;
    layout.pPushConstantRanges = &range;
    vkCreatePipelineLayout(device_, &layout, nullptr, &layout_);
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module_;
    info.stage.pName = "main";
    info.layout = layout_;
    vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline_);
  }
  ~RawKernel() {
    vkDestroyPipeline(device_, pipeline_, nullptr);
    vkDestroyPipelineLayout(device_, layout_, nullptr);
    vkDestroyShaderModule(device_, module_, nullptr);
  }
  RawKernel(const RawKernel&) = delete;
  RawKernel& operator=(const RawKernel&) = delete;

  void record(VkCommandBuffer cmd, const void* push, uint32_t groups) const {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes_, push);
    vkCmdDispatch(cmd, groups, 1, 1);
  }

 private:
  VkDevice device_;
  uint32_t pushBytes_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

}  // namespace bench
