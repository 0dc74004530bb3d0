#include <volk.h>

#include <algorithm>
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
  constexpr uint64_t kOffset = 512, kTrailing = 256;
  constexpr uint32_t kPattern = 0xC3C3C3C3u;
  struct Decoy {
    vkdml::Buffer buffer;
    std::vector<uint8_t> bytes;  // what was bound
    bool input = false;
  };
  std::vector<Decoy> decoys;
  // A decoy of `b`: the same bytes at another offset of another buffer,
  // between guard regions of a pattern.
  auto decoy = [&](const vkdml::BufferBinding& b, bool input) -> vkdml::BufferBinding {
    if (!b.buffer || !*b.buffer) return b;
    Decoy d{device.createBuffer(kOffset + ((b.sizeInBytes + 3) & ~uint64_t(3)) + kTrailing),
            std::vector<uint8_t>(b.sizeInBytes), input};
    b.buffer->download(d.bytes.data(), d.bytes.size(), b.offset);
    d.buffer.fill(kPattern, d.buffer.size());
    d.buffer.upload(d.bytes.data(), d.bytes.size(), kOffset);
    decoys.push_back(std::move(d));
    return {&decoys.back().buffer, kOffset, b.sizeInBytes};
  };
  auto decoysOf = [&](const std::vector<vkdml::BufferBinding>& list, bool input) {
    std::vector<vkdml::BufferBinding> out;
    for (const auto& b : list) out.push_back(decoy(b, input));
    return out;
  };
  decoys.reserve(bindings.inputs.size() + bindings.outputs.size() + 2);  // bindings point into it
  vkdml::BindingTable table = compiled.createBindingTable();
  table.bindInputs(decoysOf(bindings.inputs, true));
  table.bindOutputs(decoysOf(bindings.outputs, false));
  if (bindings.temporary) table.bindTemporary(decoy(*bindings.temporary, false));
  if (bindings.persistent) table.bindPersistent(decoy(*bindings.persistent, false));
  CommandBuffer commands(device);
  commands.record([&](VkCommandBuffer cmd) { compiled.record(cmd, table); });
  commands.submitAndWait();
  // The execution on the decoys wrote nothing outside their bindings, nor
  // into an input.
  for (size_t i = 0; i < decoys.size(); ++i) {
    const Decoy& d = decoys[i];
    std::vector<uint8_t> after(d.buffer.size());
    d.buffer.download(after.data(), after.size());
    const uint64_t end = kOffset + d.bytes.size();
    bool guardsIntact = true;
    for (uint64_t at = 0; at < after.size(); ++at)
      if ((at < kOffset || at >= end) && after[at] != uint8_t(kPattern)) guardsIntact = false;
    INFO("decoy " << i << (d.input ? ", an input" : ""));
    CHECK_MESSAGE(guardsIntact, "a guard region around a decoy binding changed");
    if (d.input) CHECK(std::equal(d.bytes.begin(), d.bytes.end(), after.begin() + kOffset));
  }
  table.bindInputs(bindings.inputs);
  table.bindOutputs(bindings.outputs);
  if (bindings.temporary) table.bindTemporary(*bindings.temporary);
  if (bindings.persistent) table.bindPersistent(*bindings.persistent);
  decoys.clear();  // the table held the last references
  commands.submitAndWait();
}

}  // namespace test
