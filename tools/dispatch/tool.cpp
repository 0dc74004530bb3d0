// volk first: it declares Vulkan's functions as pointers (vkdml.hpp includes vulkan_core.h).
#include <volk.h>

#include "tool.hpp"

#include <algorithm>
#include <ostream>

#include "device_list.hpp"
#include "executor.hpp"
#include "model_parser.hpp"

namespace dispatch {

namespace {

// The largest device-local memory heap, where vkdml's buffers go (0: none said).
uint64_t deviceLocalMemory(const vkdml::Device& device) {
  if (volkInitialize() != VK_SUCCESS) return 0;
  volkLoadInstanceOnly(device.instance());
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(device.physicalDevice(), &memory);
  uint64_t largest = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      largest = std::max<uint64_t>(largest, memory.memoryHeaps[i].size);
  return largest;
}

}  // namespace

ParseOptions parseOptions(const vkdml::Device& device, const Options& options) {
  ParseOptions parse;
  parse.inputPath = options.inputPath;
  if (const uint64_t maxBuffer = device.info().maxBufferSize)
    parse.maxResourceBytes = std::min(parse.maxResourceBytes, maxBuffer);
  if (const uint64_t memory = deviceLocalMemory(device)) parse.maxModelBytes = memory;
  return parse;
}

int runOnDevice(vkdml::Device& device, const Options& options, std::ostream& out, std::ostream& err) {
  out << "Running on '" << device.info().name << "'" << std::endl;
  Model model;
  try {
    model = parseModelFile(options.model, parseOptions(device, options));
  } catch (const std::exception& e) {
    err << "Failed to parse the model: " << e.what() << std::endl;
    return 1;
  }
  if (options.timingVerbosity >= 1)
    for (const auto& warning : model.warnings) err << "warning: " << warning << std::endl;
  try {
    execute(device, model, options, out);
  } catch (const std::exception& e) {
    err << "Failed to execute the model: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}

int runTool(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options options;
  try {
    options = parseCommandLine(args);
  } catch (const UsageError& e) {
    err << "vkdml-dispatch: " << e.what() << "\n\n" << usage();
    return 2;
  }
  if (options.help) {
    out << usage();
    return 0;
  }
  if (options.showAdapters && !options.list) {
    try {
      auto names = vkdml::Device::listPhysicalDevices();
      for (size_t i = 0; i < names.size(); ++i) out << i << ": " << names[i] << "\n\n";
    } catch (const std::exception& e) {
      err << "Failed to list the devices: " << e.what() << std::endl;
      return 1;
    }
    if (options.model.empty()) return 0;
  }
  std::shared_ptr<vkdml::Device> device;
  try {
    vkdml::DeviceOptions deviceOptions;
    deviceOptions.selector = options.adapter;
    deviceOptions.validation = options.debug;
    if (options.list) printDeviceList(out);
    device = vkdml::Device::create(deviceOptions);
  } catch (const std::exception& e) {
    err << "Failed to " << (options.list ? "list the devices: " : "create a device: ") << e.what() << std::endl;
    return 1;
  }
  if (options.list) {
    printDeviceFeatures(device->info(), out);
    printFeatureSupport(device->featureSupport(), out);
    if (options.model.empty()) return 0;
  }
  int code = runOnDevice(*device, options, out, err);
  // With --debug, a validation message (printed by vkdml as it comes) fails the run.
  if (code == 0 && device->validationMessageCount() > 0) {
    err << device->validationMessageCount() << " validation messages" << std::endl;
    code = 1;
  }
  return code;
}

}  // namespace dispatch
