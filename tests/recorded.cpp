#include <volk.h>

#include <stdexcept>

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

void failTest(const std::string& what) {
  FAIL(what);
  throw std::logic_error(what);  // not reached: FAIL ends the test case
}

}  // namespace

CommandBuffer::CommandBuffer(vkdml::Device& device) : RecordedCommands(device, deviceTable(device), failTest) {}

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
