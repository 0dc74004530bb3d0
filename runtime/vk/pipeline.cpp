// Pipelines: shader modules, the pipeline cache (kernel and specialization
// constants to pipeline, least recently used dropped) and its driver cache.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/guard.hpp"
#include "device_impl.hpp"
#include "interface/convolution_integer.h"

namespace vkdml {

namespace detail {
VkPipelineCache createPipelineCache(const Device::Impl& d, const std::vector<uint8_t>& initialData) {
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = initialData.size();
  info.pInitialData = initialData.data();
  VkPipelineCache cache = VK_NULL_HANDLE;
  detail::check(d.vk.vkCreatePipelineCache(d.device, &info, nullptr, &cache), "vkCreatePipelineCache");
  return cache;
}
}  // namespace detail

namespace detail {
namespace {
thread_local bool predatesActive = false;
thread_local const char* const* predatesMentions = nullptr;  // null: every message
}  // namespace
LayerPredates::LayerPredates(bool active, const char* const* mentions)
    : active_(active), previous_(predatesMentions), previousActive_(predatesActive) {
  if (!active_) return;
  predatesActive = true;
  predatesMentions = mentions;
}
LayerPredates::~LayerPredates() {
  predatesActive = previousActive_;
  predatesMentions = previous_;
}
bool LayerPredates::covers(const char* message) {
  if (!predatesActive) return false;
  if (!predatesMentions) return true;
  for (const char* const* m = predatesMentions; *m; ++m)
    if (message && std::strstr(message, *m)) return true;
  return false;
}
bool uncheckedKernel(Kernel kernel) {
  return std::strstr(kernelName(kernel), "coopmat_khr") != nullptr;
}
bool warpKernel(Kernel kernel) {
  const char* name = kernelName(kernel);
  return std::strstr(name, "coopmat_nv") || std::strstr(name, "coopmat_khr");
}
}  // namespace detail

detail::Pipeline::~Pipeline() {
  vk.vkDestroyPipeline(device, handle, nullptr);
  vk.vkDestroyPipelineCache(device, binary, nullptr);
}

VkShaderModule Device::Impl::shaderModule(detail::Kernel kernel) {
  auto found = modules.find(kernel);
  if (found != modules.end()) return found->second;
  const detail::KernelBinary& binary = detail::kernelBinary(kernel);
  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = binary.sizeInBytes;
  moduleInfo.pCode = binary.code;
#ifdef VKDML_KERNEL_OVERRIDE
  const std::vector<uint32_t> replacement = detail::kernelOverride(detail::kernelName(kernel));
  if (!replacement.empty()) {
    moduleInfo.codeSize = replacement.size() * 4;
    moduleInfo.pCode = replacement.data();
  }
#endif
  auto slot = modules.emplace(kernel, VK_NULL_HANDLE).first;  // first: nothing to leak if this throws
  const detail::LayerPredates unchecked(detail::uncheckedKernel(kernel));
  const VkResult r = vk.vkCreateShaderModule(device, &moduleInfo, nullptr, &slot->second);
  if (r != VK_SUCCESS) {
    modules.erase(slot);
    detail::check(r, "vkCreateShaderModule");
  }
  return slot->second;
}

std::shared_ptr<const detail::Pipeline> Device::Impl::pipeline(detail::Kernel kernel,
                                                               const shader::Specialization& specialization) {
  std::unique_lock<std::mutex> lock(pipelinesMutex);
  PipelineKey key(kernel, specialization);
  // A pipeline another thread is creating is waited for, not created twice.
  std::shared_ptr<Creating> waited;
  for (;;) {
    auto found = pipelines.find(key);
    if (found != pipelines.end()) {
      recentUse.splice(recentUse.begin(), recentUse, found->second.use);
      ++pipelineHits;
      return found->second.pipeline;
    }
    if (waited && waited->pipeline) {
      ++pipelineHits;
      return waited->pipeline;
    }
    auto busy = compiling.find(key);
    if (busy == compiling.end()) break;  // none, or the one waited for failed
    waited = busy->second;
    compiled.wait(lock, [&] {
      auto now = compiling.find(key);
      return now == compiling.end() || now->second != waited;
    });
  }
  const VkShaderModule module = shaderModule(kernel);
  auto creating = std::make_shared<Creating>();
  compiling.emplace(key, creating);
  VkPipelineCache into = VK_NULL_HANDLE;
  if (pipelineCacheRoom > 0) into = pipelineCache, --pipelineCacheRoom;
  // Off the lock while the driver compiles (hundreds of ms for a large
  // kernel), so that threads compiling other pipelines do so at once.
  struct Compiling {
    Impl& d;
    const PipelineKey& key;
    VkPipelineCache into;
    std::unique_lock<std::mutex>& lock;
    bool created = false;
    ~Compiling() {
      if (!lock.owns_lock()) lock.lock();
      d.compiling.erase(key);
      if (!created && into == d.pipelineCache && into) ++d.pipelineCacheRoom;  // the room it did not use
      d.compiled.notify_all();
    }
  } pending{*this, key, into, lock};
  lock.unlock();

  // One 4-byte value per constant_id (the kernel's list in shaders/interface).
  std::vector<VkSpecializationMapEntry> entries(specialization.size());
  std::vector<uint32_t> values(specialization.size());
  for (uint32_t i = 0; i < entries.size(); ++i) {
    entries[i] = {specialization[i].first, i * 4u, 4u};
    values[i] = specialization[i].second;
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), values.size() * 4, values.data()};
  VkComputePipelineCreateInfo pipelineInfo{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipelineInfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = module;
  pipelineInfo.stage.pName = "main";
  pipelineInfo.stage.pSpecializationInfo = &spec;
  pipelineInfo.layout = pipelineLayout;
  if (pipelineStatistics) pipelineInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo warpSize{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  warpSize.requiredSubgroupSize = shader::COOPMAT_SUBGROUP;
  if (detail::warpKernel(kernel) && info.subgroupSize != warpSize.requiredSubgroupSize) {
    pipelineInfo.stage.pNext = &warpSize;
    pipelineInfo.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  }
  auto p = std::make_shared<detail::Pipeline>(vk, device);  // releases what exists if anything below throws
  if (!into) into = p->binary = detail::createPipelineCache(*this, {});
  {
    const detail::LayerPredates unchecked(detail::uncheckedKernel(kernel));
    detail::check(vk.vkCreateComputePipelines(device, into, 1, &pipelineInfo, nullptr, &p->handle),
                  "vkCreateComputePipelines");
  }
  if (pipelineStatistics) printStatistics(kernel, p->handle);

  lock.lock();
  pending.created = true;
  creating->pipeline = p;
  ++pipelineMisses;
  if (pipelineCacheLimit > 0) {
    auto entry = pipelines.emplace(key, CachedPipeline{p, recentUse.end()}).first;
    try {
      recentUse.push_front(&entry->first);
    } catch (...) {
      pipelines.erase(entry);
      throw;
    }
    entry->second.use = recentUse.begin();
    trimPipelines(pipelineCacheLimit);
  }
  return p;
}

void Device::Impl::trimPipelines(size_t keep) {
  while (pipelines.size() > keep) {
    const PipelineKey* oldest = recentUse.back();
    recentUse.pop_back();
    pipelines.erase(pipelines.find(*oldest));
  }
}

Device::PipelineCacheStats Device::pipelineCacheStats() const try {
  std::lock_guard<std::mutex> lock(impl_->pipelinesMutex);
  return {impl_->pipelines.size(), impl_->pipelineHits, impl_->pipelineMisses};
} catch (...) {
  detail::rethrowAsError("Device", "pipelineCacheStats");
}

void Device::trimPipelineCache(size_t keep) try {
  Impl& d = *impl_;
  std::unique_lock<std::mutex> lock(d.pipelinesMutex);
  // keep 0: the driver's cache too (pipelines made from it do not need it),
  // once no pipeline being created off the lock writes into it; and only
  // then the pipelines, which those being created join.
  if (keep == 0) d.compiled.wait(lock, [&] { return d.compiling.empty(); });
  d.trimPipelines(keep);
  if (keep == 0) {
    VkPipelineCache empty = detail::createPipelineCache(d, {});
    d.vk.vkDestroyPipelineCache(d.device, d.pipelineCache, nullptr);
    d.pipelineCache = empty;
    d.pipelineCacheRoom = d.pipelineCacheLimit;
  }
} catch (...) {
  detail::rethrowAsError("Device", "trimPipelineCache");
}

std::vector<uint8_t> Device::pipelineCacheData() const try {
  const Impl& d = *impl_;
  std::lock_guard<std::mutex> lock(d.pipelinesMutex);
  // The shared cache and the binaries of the cached pipelines that are not
  // in it, merged into a cache of their own.
  std::vector<VkPipelineCache> sources{d.pipelineCache};
  for (const auto& entry : d.pipelines)
    if (entry.second.pipeline->binary) sources.push_back(entry.second.pipeline->binary);
  struct Merged {
    const Impl& d;
    VkPipelineCache cache;
    ~Merged() { d.vk.vkDestroyPipelineCache(d.device, cache, nullptr); }
  } merged{d, detail::createPipelineCache(d, {})};
  detail::check(
      d.vk.vkMergePipelineCaches(d.device, merged.cache, static_cast<uint32_t>(sources.size()), sources.data()),
      "vkMergePipelineCaches");
  size_t size = 0;
  detail::check(d.vk.vkGetPipelineCacheData(d.device, merged.cache, &size, nullptr), "vkGetPipelineCacheData");
  std::vector<uint8_t> data(size);
  detail::check(d.vk.vkGetPipelineCacheData(d.device, merged.cache, &size, data.data()), "vkGetPipelineCacheData");
  data.resize(size);
  return data;
} catch (...) {
  detail::rethrowAsError("Device", "pipelineCacheData");
}

// The driver's statistics of a pipeline (registers, spills, ...), for tuning.
void Device::Impl::printStatistics(detail::Kernel kernel, VkPipeline pipeline) {
  VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
  executable.pipeline = pipeline;
  uint32_t count = 0;
  vk.vkGetPipelineExecutableStatisticsKHR(device, &executable, &count, nullptr);
  std::vector<VkPipelineExecutableStatisticKHR> statistics(count,
                                                           {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
  vk.vkGetPipelineExecutableStatisticsKHR(device, &executable, &count, statistics.data());
  for (const auto& s : statistics) {
    std::fprintf(stderr, "vkdml: %s: %s = ", detail::kernelName(kernel), s.name);
    switch (s.format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        std::fprintf(stderr, "%u\n", s.value.b32);
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        std::fprintf(stderr, "%lld\n", (long long)s.value.i64);
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        std::fprintf(stderr, "%llu\n", (unsigned long long)s.value.u64);
        break;
      default:
        std::fprintf(stderr, "%g\n", s.value.f64);
    }
  }
}

}  // namespace vkdml
