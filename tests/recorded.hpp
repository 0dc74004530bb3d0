// Command buffers the tests record and submit themselves, as a caller of
// CompiledOperator::record does, and submit again after rebinding.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "recorded_commands.hpp"
#include "support.hpp"

namespace test {

// One primary command buffer of the test device, from a pool of its own
// (record and submitAndWait: recorded_commands.hpp); a failing Vulkan call
// fails the test.
class CommandBuffer : public RecordedCommands {
 public:
  explicit CommandBuffer(vkdml::Device& device);
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
