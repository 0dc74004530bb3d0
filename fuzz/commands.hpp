// Command buffers of the fuzzer's own (volk), recorded and submitted as a
// caller of CompiledOperator::record does (tests/recorded_commands.hpp): the
// schedules' rebind-and-resubmit and initializer order (schedules.cpp).
#pragma once

#include "../tests/recorded_commands.hpp"

namespace fuzz {

// Drops the device's entry points loaded for the fuzzer's command buffers:
// the next Commands loads those of the device then in use (call when
// replacing it).
void forgetDeviceTable();

// One primary command buffer of the device (tests/recorded_commands.hpp):
// discarded unsubmitted, or submitted again, as the schedule says. A
// failing Vulkan call is a finding.
class Commands : public test::RecordedCommands {
 public:
  explicit Commands(vkdml::Device& device);
};

}  // namespace fuzz
