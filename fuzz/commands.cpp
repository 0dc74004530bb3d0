// volk first: it declares Vulkan's functions as pointers (vkdml.hpp includes vulkan_core.h).
#include <volk.h>

#include "commands.hpp"

#include <optional>
#include <string>

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

Commands::Commands(vkdml::Device& device) : RecordedCommands(device, deviceTable(device), finding) {}

}  // namespace fuzz
