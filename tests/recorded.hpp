// Command buffers the tests record and submit themselves, as a caller of
// CompiledOperator::record does, and submit again after rebinding.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "support.hpp"

struct VolkDeviceTable;  // volk.h, which must come before any Vulkan header

namespace test {

// One primary command buffer of the device, from a pool of its own.
class CommandBuffer {
 public:
  explicit CommandBuffer(vkdml::Device& device);
  ~CommandBuffer();
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;
  VkCommandBuffer handle() const { return cmd_; }
  // Records `record` between begin and end, then a barrier that makes
  // compute writes visible to the host and to transfers.
  void record(const std::function<void(VkCommandBuffer)>& record);
  // Submits what was recorded (again, if it was before) and waits for it.
  void submitAndWait();

 private:
  vkdml::Device& device_;
  const VolkDeviceTable& vk_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

// The bindings of one execution: the tensors' and the temporary and
// persistent resources' (absent: the table's own).
struct Bindings {
  std::vector<vkdml::BufferBinding> inputs, outputs;
  std::optional<vkdml::BufferBinding> temporary, persistent;
};

// Executes `compiled` with `bindings` as DirectML lets a caller: records it
// once with a table bound to other buffers (decoys at other offsets, holding
// the same bytes) and submits it, then rebinds every slot to `bindings`,
// frees the decoys and submits the same command buffer again.
void executeAfterRebinding(vkdml::Device& device, const vkdml::CompiledOperator& compiled, const Bindings& bindings);

}  // namespace test
