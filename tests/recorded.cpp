#include <volk.h>

#include "recorded.hpp"

namespace test {

namespace {
// The test device's entry points, loaded once (volk's globals may follow
// another device that a test creates).
const VolkDeviceTable& deviceTable(vkdml::Device& device) {
  static VolkDeviceTable table = [&] {
    REQUIRE(volkInitialize() == VK_SUCCESS);
    volkLoadInstanceOnly(device.instance());
    VolkDeviceTable t{};
    volkLoadDeviceTable(&t, device.device());
    return t;
  }();
  REQUIRE(&device == &test::device());
  return table;
}
}  // namespace

CommandBuffer::CommandBuffer(vkdml::Device& device) : device_(device), vk_(deviceTable(device)) {
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.queueFamilyIndex = device.queueFamilyIndex();
  REQUIRE(vk_.vkCreateCommandPool(device.device(), &poolInfo, nullptr, &pool_) == VK_SUCCESS);
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = pool_;
  allocate.commandBufferCount = 1;
  REQUIRE(vk_.vkAllocateCommandBuffers(device.device(), &allocate, &cmd_) == VK_SUCCESS);
}

CommandBuffer::~CommandBuffer() {
  vk_.vkDestroyCommandPool(device_.device(), pool_, nullptr);
}

void CommandBuffer::record(const std::function<void(VkCommandBuffer)>& record) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  REQUIRE(vk_.vkBeginCommandBuffer(cmd_, &begin) == VK_SUCCESS);
  record(cmd_);
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vk_.vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                           nullptr);
  REQUIRE(vk_.vkEndCommandBuffer(cmd_) == VK_SUCCESS);
}

void CommandBuffer::submitAndWait() {
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  REQUIRE(vk_.vkCreateFence(device_.device(), &fenceInfo, nullptr, &fence) == VK_SUCCESS);
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
  REQUIRE(result == VK_SUCCESS);
}

void executeAfterRebinding(vkdml::Device& device, const vkdml::CompiledOperator& compiled, const Bindings& bindings) {
  std::vector<vkdml::Buffer> decoys;
  // A decoy of `b`: the same bytes at another offset of another buffer.
  auto decoy = [&](const vkdml::BufferBinding& b) -> vkdml::BufferBinding {
    if (!b.buffer || !*b.buffer) return b;
    constexpr uint64_t kOffset = 512;
    std::vector<uint8_t> bytes(b.sizeInBytes);
    b.buffer->download(bytes.data(), bytes.size(), b.offset);
    decoys.push_back(device.createBuffer(kOffset + b.sizeInBytes + 256));
    decoys.back().fill(0xC3C3C3C3u, decoys.back().size() & ~uint64_t(3));
    decoys.back().upload(bytes.data(), bytes.size(), kOffset);
    return {&decoys.back(), kOffset, b.sizeInBytes};
  };
  auto decoysOf = [&](const std::vector<vkdml::BufferBinding>& list) {
    std::vector<vkdml::BufferBinding> out;
    for (const auto& b : list) out.push_back(decoy(b));
    return out;
  };
  decoys.reserve(bindings.inputs.size() + bindings.outputs.size() + 2);  // bindings point into it
  vkdml::BindingTable table = compiled.createBindingTable();
  table.bindInputs(decoysOf(bindings.inputs));
  table.bindOutputs(decoysOf(bindings.outputs));
  if (bindings.temporary) table.bindTemporary(decoy(*bindings.temporary));
  if (bindings.persistent) table.bindPersistent(decoy(*bindings.persistent));
  CommandBuffer commands(device);
  commands.record([&](VkCommandBuffer cmd) { compiled.record(cmd, table); });
  commands.submitAndWait();
  table.bindInputs(bindings.inputs);
  table.bindOutputs(bindings.outputs);
  if (bindings.temporary) table.bindTemporary(*bindings.temporary);
  if (bindings.persistent) table.bindPersistent(*bindings.persistent);
  decoys.clear();  // the table held the last references
  commands.submitAndWait();
}

}  // namespace test
