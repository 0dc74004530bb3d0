// One command buffer recorded and submitted as a caller of
// CompiledOperator::record does: the tests' (recorded.hpp) and the
// fuzzer's (fuzz/commands.hpp), which differ only in how they load the
// device's entry points and report a failing Vulkan call.
#pragma once

#include <vkdml/vkdml.hpp>

#include <functional>
#include <string>

struct VolkDeviceTable;  // volk.h, which must come before any Vulkan header

namespace test {

// One primary command buffer of the device, from a pool of its own.
class RecordedCommands {
 public:
  // `fail` reports a Vulkan call that did not succeed and does not return.
  using Fail = void (*)(const std::string& what);
  RecordedCommands(vkdml::Device& device, const VolkDeviceTable& vk, Fail fail);
  ~RecordedCommands();
  RecordedCommands(const RecordedCommands&) = delete;
  RecordedCommands& operator=(const RecordedCommands&) = delete;
  VkCommandBuffer handle() const { return cmd_; }

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
  Fail fail_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

}  // namespace test
