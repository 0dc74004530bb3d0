// volk first: it declares Vulkan's functions as pointers (vkdml.hpp includes vulkan_core.h).
#include <volk.h>

#include "recorded_commands.hpp"

namespace test {

RecordedCommands::RecordedCommands(vkdml::Device& device, const VolkDeviceTable& vk, Fail fail)
    : device_(device), vk_(vk), fail_(fail) {
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.queueFamilyIndex = device.queueFamilyIndex();
  if (vk_.vkCreateCommandPool(device.device(), &poolInfo, nullptr, &pool_) != VK_SUCCESS)
    fail_("vkCreateCommandPool failed");
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = pool_;
  allocate.commandBufferCount = 1;
  if (vk_.vkAllocateCommandBuffers(device.device(), &allocate, &cmd_) != VK_SUCCESS) {
    vk_.vkDestroyCommandPool(device.device(), pool_, nullptr);
    fail_("vkAllocateCommandBuffers failed");
  }
}

RecordedCommands::~RecordedCommands() {
  vk_.vkDestroyCommandPool(device_.device(), pool_, nullptr);
}

void RecordedCommands::record(const std::function<void(VkCommandBuffer)>& record) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  if (vk_.vkBeginCommandBuffer(cmd_, &begin) != VK_SUCCESS) fail_("vkBeginCommandBuffer failed");
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
  if (vk_.vkEndCommandBuffer(cmd_) != VK_SUCCESS) fail_("vkEndCommandBuffer failed");
}

void RecordedCommands::submitAndWait() {
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  if (vk_.vkCreateFence(device_.device(), &fenceInfo, nullptr, &fence) != VK_SUCCESS) fail_("vkCreateFence failed");
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
  if (result != VK_SUCCESS)
    fail_("the submitted command buffer failed: VkResult " + std::to_string(static_cast<int>(result)));
}

void RecordedCommands::barrier(VkPipelineStageFlags srcStages, VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
                               VkAccessFlags dstAccess) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  vk_.vkCmdPipelineBarrier(cmd_, srcStages, dstStages, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace test
