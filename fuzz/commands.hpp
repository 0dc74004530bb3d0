// Command buffers of the fuzzer's own (volk), recorded and submitted as a
// caller of CompiledOperator::record does (tests/recorded.cpp): the
// schedules' rebind-and-resubmit and initializer order (schedules.cpp).
#pragma once

#include <vkdml/vkdml.hpp>

#include <functional>

struct VolkDeviceTable;  // volk.h, which must come before any Vulkan header

namespace fuzz {

// Drops the device's entry points loaded for the fuzzer's command buffers:
// the next Commands loads those of the device then in use (call when
// replacing it).
void forgetDeviceTable();

// One primary command buffer of the device, from a pool of its own.
// Discarded unsubmitted, or submitted again, as the schedule says.
class Commands {
 public:
  explicit Commands(vkdml::Device& device);
  ~Commands();
  Commands(const Commands&) = delete;
  Commands& operator=(const Commands&) = delete;

  // Records `record` between begin and end: after a barrier that orders it
  // after earlier copies into the buffers, before one that makes its writes
  // visible to the host and to transfers. What `record` throws passes
  // through (the command buffer ended first).
  void record(const std::function<void(VkCommandBuffer)>& record);
  // Submits what was recorded (again, if it was before) and waits for it.
  void submitAndWait();

 private:
  void barrier(VkPipelineStageFlags srcStages, VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
               VkAccessFlags dstAccess);

  vkdml::Device& device_;
  const VolkDeviceTable& vk_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

}  // namespace fuzz
