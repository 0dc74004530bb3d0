// The Vulkan loader, the instance and the choice of physical device.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/guard.hpp"
#include "setup.hpp"

namespace vkdml {
namespace detail {

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                              const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* impl = static_cast<Device::Impl*>(user);
  if (LayerPredates::covers(data ? data->pMessage : nullptr)) {
    ++impl->predatedMessages;
    return VK_FALSE;
  }
  ++impl->validationMessages;
  const char* message = data && data->pMessage ? data->pMessage : "(no message)";
  // An exception must not unwind through the driver's C code.
  try {
    if (impl->onValidationMessage)
      impl->onValidationMessage(message);
    else
      std::fprintf(stderr, "vkdml: validation: %s\n", message);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vkdml: onValidationMessage threw (%s) on: %s\n", e.what(), message);
  } catch (...) {
    std::fprintf(stderr, "vkdml: onValidationMessage threw on: %s\n", message);
  }
  return VK_FALSE;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The instance's physical devices (fewer where one went away between the
// two calls).
std::vector<VkPhysicalDevice> physicalDevices(VkInstance instance) {
  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  const VkResult listed = vkEnumeratePhysicalDevices(instance, &count, devices.data());
  if (listed != VK_INCOMPLETE) check(listed, "vkEnumeratePhysicalDevices");
  devices.resize(count);
  return devices;
}

VkPhysicalDevice choosePhysicalDevice(VkInstance instance, const std::string& selector) {
  const std::vector<VkPhysicalDevice> devices = physicalDevices(instance);
  const uint32_t count = static_cast<uint32_t>(devices.size());
  if (devices.empty()) throw Error(ErrorCode::Unsupported, "Device", "physicalDevice", "no Vulkan device found");
  std::vector<VkPhysicalDeviceProperties> properties(count);
  for (uint32_t i = 0; i < count; ++i) vkGetPhysicalDeviceProperties(devices[i], &properties[i]);

  if (!selector.empty()) {
    bool numeric = std::all_of(selector.begin(), selector.end(), [](char c) { return c >= '0' && c <= '9'; });
    for (uint32_t i = 0; i < count; ++i) {
      if (numeric ? std::to_string(i) == selector
                  : lower(properties[i].deviceName).find(lower(selector)) != std::string::npos)
        return devices[i];
    }
    std::string names;
    for (uint32_t i = 0; i < count; ++i) names += detail::concat(i ? ", " : "", i, ": ", properties[i].deviceName);
    throw Error(ErrorCode::InvalidArgument, "Device", "VKDML_DEVICE",
                detail::concat("no device matches '", selector, "' (devices: ", names, ")"));
  }
  for (VkPhysicalDeviceType wanted : {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
                                      VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VK_PHYSICAL_DEVICE_TYPE_CPU})
    for (uint32_t i = 0; i < count; ++i)
      if (properties[i].deviceType == wanted) return devices[i];
  return devices[0];
}

uint32_t chooseQueueFamily(VkPhysicalDevice physicalDevice) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &count, families.data());
  uint32_t best = UINT32_MAX;
  for (uint32_t i = 0; i < count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (best == UINT32_MAX || (families[i].timestampValidBits && !families[best].timestampValidBits)) best = i;
  }
  if (best == UINT32_MAX) throw Error(ErrorCode::Unsupported, "Device", "queue", "the device has no compute queue");
  return best;
}

}  // namespace

// volk keeps one set of instance-level function pointers for the process,
// which volkLoadInstanceOnly overwrites. Creating, adopting and listing
// devices hold this lock from loading them to their last use; a Device then
// calls only its own device table and the instance functions it loaded for
// itself (Impl::destroyInstance, Impl::destroyMessenger).
std::unique_lock<std::mutex> lockLoader() {
  static const VkResult loaded = volkInitialize();  // once, thread-safe
  if (loaded != VK_SUCCESS)
    throw Error(ErrorCode::Unsupported, "Device", "loader", "no Vulkan loader (libvulkan.so.1) could be loaded");
  static std::mutex mutex;
  return std::unique_lock<std::mutex>(mutex);
}

bool createInstance(Device::Impl& d, const DeviceOptions& options) {
  // Instance: Vulkan 1.1 at least; validation and debug messages on request.
  uint32_t loaderVersion = volkGetInstanceVersion();
  uint32_t layerCount = 0;
  vkEnumerateInstanceLayerProperties(&layerCount, nullptr);
  std::vector<VkLayerProperties> layers(layerCount);
  vkEnumerateInstanceLayerProperties(&layerCount, layers.data());
  uint32_t extensionCount = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &extensionCount, nullptr);
  std::vector<VkExtensionProperties> instanceExtensions(extensionCount);
  vkEnumerateInstanceExtensionProperties(nullptr, &extensionCount, instanceExtensions.data());

  const char* env = std::getenv("VKDML_VALIDATION");
  bool wantValidation = options.validation || (env && std::strcmp(env, "0") != 0 && *env);
  const char* validationLayer = "VK_LAYER_KHRONOS_validation";
  bool haveValidation = std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
    return std::strcmp(l.layerName, validationLayer) == 0;
  });
  bool validation = wantValidation && haveValidation;
  bool debugUtils = validation && hasExtension(instanceExtensions, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  std::vector<const char*> enabledExtensions;
  VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  if (hasExtension(instanceExtensions, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    enabledExtensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    instanceInfo.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  if (debugUtils) enabledExtensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vkdml";
  app.pEngineName = "vkdml";
  app.apiVersion = std::min<uint32_t>(std::max<uint32_t>(loaderVersion, VK_API_VERSION_1_1), VK_API_VERSION_1_3);
  instanceInfo.pApplicationInfo = &app;
  instanceInfo.enabledExtensionCount = static_cast<uint32_t>(enabledExtensions.size());
  instanceInfo.ppEnabledExtensionNames = enabledExtensions.data();
  if (validation) {
    instanceInfo.enabledLayerCount = 1;
    instanceInfo.ppEnabledLayerNames = &validationLayer;
  }
  VkDebugUtilsMessengerCreateInfoEXT messengerInfo{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messengerInfo.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
  messengerInfo.pfnUserCallback = onDebugMessage;
  messengerInfo.pUserData = &d;
  if (debugUtils) instanceInfo.pNext = &messengerInfo;  // also reports instance creation
  detail::check(vkCreateInstance(&instanceInfo, nullptr, &d.instance), "vkCreateInstance");
  volkLoadInstanceOnly(d.instance);
  d.destroyInstance = vkDestroyInstance;
  if (debugUtils) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(d.instance, "vkCreateDebugUtilsMessengerEXT"));
    d.destroyMessenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(d.instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (create && d.destroyMessenger)
      detail::check(create(d.instance, &messengerInfo, nullptr, &d.messenger), "vkCreateDebugUtilsMessengerEXT");
  }

  return validation;
}

void selectPhysicalDevice(Device::Impl& d, const DeviceOptions& options) {
  std::string selector = options.selector;
  if (selector.empty())
    if (const char* s = std::getenv("VKDML_DEVICE")) selector = s;
  d.physicalDevice = choosePhysicalDevice(d.instance, selector);
  d.queueFamily = chooseQueueFamily(d.physicalDevice);
}

}  // namespace detail

std::vector<std::string> Device::listPhysicalDevices() try {
  auto lock = detail::lockLoader();
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  detail::check(vkCreateInstance(&info, nullptr, &instance), "vkCreateInstance");
  volkLoadInstanceOnly(instance);
  struct Destroy {
    VkInstance instance;
    ~Destroy() { vkDestroyInstance(instance, nullptr); }  // the lock is still held
  } destroyLater{instance};
  const std::vector<VkPhysicalDevice> devices = detail::physicalDevices(instance);
  std::vector<std::string> names;
  for (VkPhysicalDevice pd : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    names.emplace_back(p.deviceName);
  }
  return names;
} catch (...) {
  detail::rethrowAsError("Device", "listPhysicalDevices");
}

}  // namespace vkdml
