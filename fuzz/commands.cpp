// volk first: it declares Vulkan's functions as pointers (vkdml.hpp includes vulkan_core.h).
#include <volk.h>

#include "commands.hpp"

#include <optional>

#include "harness.hpp"

namespace fuzz {

namespace {
// The device's entry points, loaded for each device the fuzzer creates.
std::optional<VolkDeviceTable> gDeviceTable;

const VolkDeviceTable& deviceTable(vkdml::Device& device) {
  if (!gDeviceTable) {
    static const VkResult loaded = volkInitialize();
    if (loaded != VK_SUCCESS) finding("volkInitialize failed");
    // vkdml's devices call only their own tables: volk's instance-level
    // globals are free to point at this one's instance.
    volkLoadInstanceOnly(device.instance());
    gDeviceTable.emplace();
    volkLoadDeviceTable(&*gDeviceTable, device.device());
  }
  return *gDeviceTable;
}
}  // namespace

void forgetDeviceTable() {
  gDeviceTable.reset();
}

Commands::Commands(vkdml::Device& device) : device_(device), vk_(deviceTable(device)) {
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.queueFamilyIndex = device.queueFamilyIndex();
  if (vk_.vkCreateCommandPool(device.device(), &poolInfo, nullptr, &pool_) != VK_SUCCESS)
    finding("vkCreateCommandPool failed");
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = pool_;
  allocate.commandBufferCount = 1;
  if (vk_.vkAllocateCommandBuffers(device.device(), &allocate, &cmd_) != VK_SUCCESS)
    finding("vkAllocateCommandBuffers failed");
}

Commands::~Commands() {
  vk_.vkDestroyCommandPool(device_.device(), pool_, nullptr);
}

void Commands::record(const std::function<void(VkCommandBuffer)>& record) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  if (vk_.vkBeginCommandBuffer(cmd_, &begin) != VK_SUCCESS) finding("vkBeginCommandBuffer failed");
  barrier(VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT |
              VK_ACCESS_SHADER_WRITE_BIT);
  try {
    record(cmd_);
  } catch (...) {
    vk_.vkEndCommandBuffer(cmd_);
    throw;
  }
  barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  if (vk_.vkEndCommandBuffer(cmd_) != VK_SUCCESS) finding("vkEndCommandBuffer failed");
}

void Commands::submitAndWait() {
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  if (vk_.vkCreateFence(device_.device(), &fenceInfo, nullptr, &fence) != VK_SUCCESS) finding("vkCreateFence failed");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd_;
  VkResult result;
  {
    auto lock = device_.lockQueue();
    result = vk_.vkQueueSubmit(device_.queue(), 1, &submit, fence);
  }
  if (result == VK_SUCCESS) result = vk_.vkWaitForFences(device_.device(), 1, &fence, VK_TRUE, UINT64_MAX);
  vk_.vkDestroyFence(device_.device(), fence, nullptr);
  if (result != VK_SUCCESS) finding(str("the fuzzer's command buffer failed: VkResult ", static_cast<int>(result)));
}

void Commands::barrier(VkPipelineStageFlags srcStages, VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
                       VkAccessFlags dstAccess) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  vk_.vkCmdPipelineBarrier(cmd_, srcStages, dstStages, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace fuzz
