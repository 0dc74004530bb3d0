// The objects behind the public handles.
#pragma once

#include <map>
#include <mutex>

#include "internal.hpp"

namespace vkdml {

struct Device::Impl {
  bool ownsDevice = false;  // false when adopted
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VolkDeviceTable vk{};
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  // Loaded for this instance: volk's global instance pointers follow the
  // newest instance, whose extensions may differ.
  PFN_vkDestroyDebugUtilsMessengerEXT destroyMessenger = nullptr;
  std::function<void(const char*)> onValidationMessage;
  uint64_t validationMessages = 0;
  DeviceInfo info;
  VkPhysicalDeviceMemoryProperties memory{};

  VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;  // push constants only: no descriptors
  VkPipelineCache pipelineCache = VK_NULL_HANDLE;
  std::mutex pipelinesMutex;
  std::map<std::pair<std::string, std::vector<uint32_t>>, VkPipeline> pipelines;
  std::map<std::string, VkShaderModule> modules;

  std::mutex submitMutex;  // guards the pool, the fence and the queue
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;

  // Allocation helpers.
  uint32_t memoryType(uint32_t typeBits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;
  VkPipeline pipeline(const std::string& kernel, const std::vector<uint32_t>& specialization);
  bool pipelineStatistics = false;  // $VKDML_PIPELINE_STATISTICS=1: print each pipeline's
  void printStatistics(const std::string& kernel, VkPipeline pipeline);
  void submitAndWait(const std::function<void(VkCommandBuffer)>& record);
  void destroy();
};

struct Buffer::Impl {
  std::shared_ptr<Device> device;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;  // host-visible buffers only
  uint64_t size = 0;
  VkDeviceAddress address = 0;
  bool owned = true;
  ~Impl();
};

// Creates a buffer usable as a shader device address.
std::shared_ptr<Buffer::Impl> allocateBuffer(const std::shared_ptr<Device>& device, uint64_t bytes, bool hostVisible);

struct CompiledOperator::Impl {
  std::shared_ptr<Device> device;
  Operator op;
  std::vector<detail::Dispatch> dispatches;
  std::vector<VkPipeline> pipelines;
  std::vector<VkDeviceAddress> paramsAddress;
  uint64_t scratchBytes = 0;  // the largest Dispatch::scratchBytes
  std::shared_ptr<Buffer::Impl> params;
};

// What one slot of a binding table holds: the buffer (kept alive as long as
// the table holds it) and the range the slot's tensor may touch, as device
// addresses, so that ranges of different buffers that alias one memory
// compare too. An absent optional tensor binds nothing (address 0).
struct BoundRange {
  std::shared_ptr<Buffer::Impl> buffer;
  uint64_t offset = 0;          // in the buffer
  VkDeviceAddress address = 0;  // buffer's address + offset
  uint64_t bytes = 0;           // TotalTensorSizeInBytes
};

struct BindingTable::Impl {
  std::shared_ptr<const CompiledOperator::Impl> op;
  std::shared_ptr<Buffer::Impl> table;           // host-visible: one device address per slot
  std::shared_ptr<Buffer::Impl> scratch;         // OperatorPlan::scratchBytes, if any
  std::vector<std::optional<BoundRange>> slots;  // inputs, then outputs; empty until bound
};

}  // namespace vkdml
