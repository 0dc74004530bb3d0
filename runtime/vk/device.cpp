// Device selection and creation, buffers, pipelines and submission.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "device_impl.hpp"
#include "guard.hpp"

namespace vkdml {

namespace {

constexpr uint32_t kPushConstantBytes = sizeof(shader::PushConstants);  // {params address, binding-table address}
constexpr uint64_t kStagingChunk = 64ull << 20;

bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice physicalDevice) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> list(count);
  vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr, &count, list.data());
  return list;
}

// Optional device capabilities, by core version or extension.
struct OptionalExtensions {
  bool memoryModel = false, dot = false, cooperativeMatrixNV = false;
  bool pipelineStatistics = false;    // asked for with $VKDML_PIPELINE_STATISTICS=1
  bool maintenance4 = false;          // its properties are read (maxBufferSize); nothing is enabled
  std::vector<const char*> toEnable;  // the extensions that provide them below the core version
};

OptionalExtensions optionalExtensions(VkPhysicalDevice physicalDevice, uint32_t apiVersion) {
  const auto available = deviceExtensions(physicalDevice);
  OptionalExtensions o;
  auto byVersionOrExtension = [&](uint32_t core, const char* extension) {
    if (apiVersion >= core) return true;
    if (!hasExtension(available, extension)) return false;
    o.toEnable.push_back(extension);
    return true;
  };
  o.memoryModel = byVersionOrExtension(VK_API_VERSION_1_2, VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME);
  o.dot = byVersionOrExtension(VK_API_VERSION_1_3, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  o.cooperativeMatrixNV = byVersionOrExtension(~0u, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (const char* env = std::getenv("VKDML_PIPELINE_STATISTICS"); env && std::strcmp(env, "1") == 0)
    o.pipelineStatistics = byVersionOrExtension(~0u, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  o.maintenance4 = apiVersion >= VK_API_VERSION_1_3 || hasExtension(available, VK_KHR_MAINTENANCE_4_EXTENSION_NAME);
  return o;
}

VKAPI_ATTR VkBool32 VKAPI_CALL onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                              const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* impl = static_cast<Device::Impl*>(user);
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

// The feature structs vkdml reads and enables. Optional ones join the chain
// only where the device has them (core version or extension): chaining a
// struct the device does not know is invalid usage.
struct Features {
  VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceBufferDeviceAddressFeatures address{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features float16Int8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceVulkanMemoryModelFeatures memoryModel{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
  VkPhysicalDeviceShaderIntegerDotProductFeatures dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperativeMatrix{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pipelineStatistics{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  Features(const OptionalExtensions& has) {
    core.pNext = &address;
    address.pNext = &storage8;
    storage8.pNext = &storage16;
    storage16.pNext = &float16Int8;
    void** tail = &float16Int8.pNext;
    auto append = [&](auto& s) {
      *tail = &s;
      tail = &s.pNext;
    };
    if (has.memoryModel) append(memoryModel);
    if (has.dot) append(dot);
    if (has.cooperativeMatrixNV) append(cooperativeMatrix);
    if (has.pipelineStatistics) append(pipelineStatistics);
  }
  Features(const Features&) = delete;
};

// Whether the device has a subgroup-scope int8 configuration the
// cooperative-matrix kernel uses: A 16x32 s8, B 32x16 s8, C 16x16 s32.
bool hasInt8CooperativeMatrix(VkInstance instance, VkPhysicalDevice physicalDevice) {
  // Through this instance's own entry point: volk's global ones follow the newest instance.
  auto get = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (!get) return false;
  uint32_t count = 0;
  get(physicalDevice, &count, nullptr);
  std::vector<VkCooperativeMatrixPropertiesNV> list(count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  get(physicalDevice, &count, list.data());
  return std::any_of(list.begin(), list.end(), [](const VkCooperativeMatrixPropertiesNV& p) {
    return p.MSize == 16 && p.NSize == 16 && p.KSize == 32 && p.AType == VK_COMPONENT_TYPE_SINT8_NV &&
           p.BType == VK_COMPONENT_TYPE_SINT8_NV && p.CType == VK_COMPONENT_TYPE_SINT32_NV &&
           p.DType == VK_COMPONENT_TYPE_SINT32_NV && p.scope == VK_SCOPE_SUBGROUP_NV;
  });
}

void readInfo(Device::Impl& d) {
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceShaderIntegerDotProductProperties dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES};
  VkPhysicalDeviceMaintenance4Properties maintenance4{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  vkGetPhysicalDeviceProperties2(d.physicalDevice, &properties);  // the version first
  const OptionalExtensions has = optionalExtensions(d.physicalDevice, properties.properties.apiVersion);
  properties.pNext = &subgroup;
  subgroup.pNext = &maintenance3;
  void** tail = &maintenance3.pNext;
  if (has.dot) {
    *tail = &dot;
    tail = &dot.pNext;
  }
  if (has.maintenance4) *tail = &maintenance4;
  vkGetPhysicalDeviceProperties2(d.physicalDevice, &properties);
  d.properties = properties.properties;
  const VkPhysicalDeviceLimits& limits = properties.properties.limits;

  Features f(has);
  vkGetPhysicalDeviceFeatures2(d.physicalDevice, &f.core);
  vkGetPhysicalDeviceMemoryProperties(d.physicalDevice, &d.memory);

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(d.physicalDevice, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(d.physicalDevice, &familyCount, families.data());

  DeviceInfo& i = d.info;
  i.name = properties.properties.deviceName;
  i.vendorId = properties.properties.vendorID;
  i.apiVersion = properties.properties.apiVersion;
  i.type = properties.properties.deviceType;
  i.subgroupSize = subgroup.subgroupSize;
  i.subgroupShuffleRelative = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                              (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT);
  i.maxComputeSharedMemorySize = limits.maxComputeSharedMemorySize;
  i.maxComputeWorkGroupCountX = limits.maxComputeWorkGroupCount[0];
  i.maxStorageBufferRange = limits.maxStorageBufferRange;
  i.maxMemoryAllocationSize = maintenance3.maxMemoryAllocationSize;
  i.maxBufferSize = has.maintenance4 ? maintenance4.maxBufferSize : 0;
  i.timestampPeriodNs =
      d.queueFamily < familyCount && families[d.queueFamily].timestampValidBits ? limits.timestampPeriod : 0.0f;
  i.shaderInt8 = f.float16Int8.shaderInt8;
  i.shaderInt16 = f.core.features.shaderInt16;
  i.shaderFloat16 = f.float16Int8.shaderFloat16;
  i.storageBuffer8BitAccess = f.storage8.storageBuffer8BitAccess;
  i.storageBuffer16BitAccess = f.storage16.storageBuffer16BitAccess;
  i.vulkanMemoryModel =
      has.memoryModel && f.memoryModel.vulkanMemoryModel && f.memoryModel.vulkanMemoryModelDeviceScope;
  i.integerDotProduct = has.dot && f.dot.shaderIntegerDotProduct;
  i.integerDotProduct4x8BitPackedAccelerated = has.dot && dot.integerDotProduct4x8BitPackedSignedAccelerated &&
                                               dot.integerDotProduct4x8BitPackedUnsignedAccelerated &&
                                               dot.integerDotProduct4x8BitPackedMixedSignednessAccelerated;
  i.cooperativeMatrixNV = has.cooperativeMatrixNV && f.cooperativeMatrix.cooperativeMatrix;
  // The kernel's matrix types are int8 (Int8) and its shader declares the
  // Vulkan memory model (GL_KHR_memory_scope_semantics names the scope).
  i.cooperativeMatrixInt8 = i.cooperativeMatrixNV && i.shaderInt8 && i.vulkanMemoryModel &&
                            hasInt8CooperativeMatrix(d.instance, d.physicalDevice);
}

// Whether `blob` (DeviceOptions::pipelineCacheData) is a pipeline cache of
// this device and driver, by its header (VkPipelineCacheHeaderVersionOne):
// the driver is handed only those. A cache of another device or driver
// version is stale, which is no error; a blob that is no pipeline cache is.
bool pipelineCacheMatches(const std::vector<uint8_t>& blob, const VkPhysicalDeviceProperties& device) {
  auto invalid = [](const std::string& rule) {
    throw Error(ErrorCode::InvalidArgument, "DeviceOptions", "pipelineCacheData",
                "DeviceOptions: pipelineCacheData: " + rule);
  };
  VkPipelineCacheHeaderVersionOne header;
  if (blob.size() < sizeof header)
    invalid(detail::concat("holds ", blob.size(), " bytes, less than the ", sizeof header, "-byte header"));
  std::memcpy(&header, blob.data(), sizeof header);
  if (header.headerSize < sizeof header || header.headerSize > blob.size())
    invalid(detail::concat("headerSize ", header.headerSize, " must be ", sizeof header, "..", blob.size()));
  if (header.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE)
    invalid(detail::concat("headerVersion ", static_cast<uint32_t>(header.headerVersion), " is not ",
                           static_cast<uint32_t>(VK_PIPELINE_CACHE_HEADER_VERSION_ONE)));
  return header.vendorID == device.vendorID && header.deviceID == device.deviceID &&
         std::memcmp(header.pipelineCacheUUID, device.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

VkPipelineCache createPipelineCache(const Device::Impl& d, const std::vector<uint8_t>& initialData) {
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = initialData.size();
  info.pInitialData = initialData.data();
  VkPipelineCache cache = VK_NULL_HANDLE;
  detail::check(d.vk.vkCreatePipelineCache(d.device, &info, nullptr, &cache), "vkCreatePipelineCache");
  return cache;
}

// Objects every Device needs, created on a ready VkDevice.
void createCommonObjects(Device::Impl& d, const DeviceOptions& options) {
  volkLoadDeviceTable(&d.vk, d.device);
  d.vk.vkGetDeviceQueue(d.device, d.queueFamily, 0, &d.queue);

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.pushConstantRangeCount = 1;
  layout.pPushConstantRanges = &range;
  detail::check(d.vk.vkCreatePipelineLayout(d.device, &layout, nullptr, &d.pipelineLayout), "vkCreatePipelineLayout");
  d.info.pipelineCacheLoaded =
      !options.pipelineCacheData.empty() && pipelineCacheMatches(options.pipelineCacheData, d.properties);
  if (d.info.pipelineCacheLoaded) {
    // A matching header, but the driver may still refuse the rest (NVIDIA
    // refuses a cut blob): then the blob is ignored, as a stale one is.
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    info.initialDataSize = options.pipelineCacheData.size();
    info.pInitialData = options.pipelineCacheData.data();
    const VkResult r = d.vk.vkCreatePipelineCache(d.device, &info, nullptr, &d.pipelineCache);
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
      detail::check(r, "vkCreatePipelineCache");
    d.info.pipelineCacheLoaded = r == VK_SUCCESS;
  }
  if (!d.pipelineCache) d.pipelineCache = createPipelineCache(d, {});
  d.pipelineCacheLimit = d.pipelineCacheRoom = options.pipelineCacheLimit;
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = d.queueFamily;
  detail::check(d.vk.vkCreateCommandPool(d.device, &pool, nullptr, &d.commandPool), "vkCreateCommandPool");
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  detail::check(d.vk.vkCreateFence(d.device, &fence, nullptr, &d.fence), "vkCreateFence");
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

VkPhysicalDevice choosePhysicalDevice(VkInstance instance, const std::string& selector) {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance, &count, devices.data());
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

Device::Device() : impl_(std::make_unique<Impl>()) {}

Device::~Device() {
  if (impl_) impl_->destroy();
}

void Device::Impl::destroy() {
  if (device) {
    vk.vkDeviceWaitIdle(device);
    recentUse.clear();
    pipelines.clear();  // no compiled operator holds one: each holds the Device
    for (auto& m : modules) vk.vkDestroyShaderModule(device, m.second, nullptr);
    modules.clear();
    vk.vkDestroyPipelineCache(device, pipelineCache, nullptr);
    vk.vkDestroyPipelineLayout(device, pipelineLayout, nullptr);
    vk.vkDestroyCommandPool(device, commandPool, nullptr);
    vk.vkDestroyFence(device, fence, nullptr);
    if (ownsDevice) vk.vkDestroyDevice(device, nullptr);
  }
  if (ownsDevice) {
    if (messenger && destroyMessenger) destroyMessenger(instance, messenger, nullptr);
    if (instance && destroyInstance) destroyInstance(instance, nullptr);
  }
  device = VK_NULL_HANDLE;
  instance = VK_NULL_HANDLE;
}

std::vector<std::string> Device::listPhysicalDevices() try {
  auto lock = lockLoader();
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
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance, &count, devices.data());
  devices.resize(count);
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

std::shared_ptr<Device> Device::create(const DeviceOptions& options) try {
  auto lock = lockLoader();
  std::shared_ptr<Device> self(new Device());  // released before the lock on failure
  Impl& d = *self->impl_;
  d.ownsDevice = true;
  d.onValidationMessage = options.onValidationMessage;

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

  std::string selector = options.selector;
  if (selector.empty())
    if (const char* s = std::getenv("VKDML_DEVICE")) selector = s;
  d.physicalDevice = choosePhysicalDevice(d.instance, selector);
  d.queueFamily = chooseQueueFamily(d.physicalDevice);
  readInfo(d);
  d.info.validationEnabled = validation;
  if (d.info.apiVersion < VK_API_VERSION_1_1)
    throw Error(ErrorCode::Unsupported, "Device", "apiVersion",
                detail::concat(d.info.name, " supports only Vulkan ", VK_API_VERSION_MAJOR(d.info.apiVersion), ".",
                               VK_API_VERSION_MINOR(d.info.apiVersion), "; vkdml needs 1.1"));

  // Features every kernel relies on: device addresses (no descriptor sets,
  // no maxStorageBufferRange limit), 64-bit address arithmetic, and 8/16-bit
  // loads and stores for data movement of 1- and 2-byte elements.
  const OptionalExtensions has = optionalExtensions(d.physicalDevice, d.info.apiVersion);
  Features supported(has);
  vkGetPhysicalDeviceFeatures2(d.physicalDevice, &supported.core);
  // All missing features are named at once (SwiftShader lacks three).
  std::string missing;
  auto require = [&](VkBool32 present, const char* feature) {
    if (!present) missing += detail::concat(missing.empty() ? "" : ", ", feature);
  };
  require(supported.address.bufferDeviceAddress, "bufferDeviceAddress");
  require(supported.core.features.shaderInt64, "shaderInt64");
  require(supported.storage8.storageBuffer8BitAccess, "storageBuffer8BitAccess");
  require(supported.storage16.storageBuffer16BitAccess, "storageBuffer16BitAccess");
  if (!missing.empty())
    throw Error(ErrorCode::Unsupported, "Device", "features",
                detail::concat(d.info.name, " lacks ", missing, ", which vkdml needs"));

  // What the fast convolution paths use is enabled where present.
  Features enabled(has);
  enabled.core.features.shaderInt64 = VK_TRUE;
  enabled.core.features.shaderInt16 = supported.core.features.shaderInt16;
  enabled.address.bufferDeviceAddress = VK_TRUE;
  enabled.storage8.storageBuffer8BitAccess = VK_TRUE;
  enabled.storage16.storageBuffer16BitAccess = VK_TRUE;
  enabled.float16Int8.shaderInt8 = supported.float16Int8.shaderInt8;
  enabled.float16Int8.shaderFloat16 = supported.float16Int8.shaderFloat16;
  // Both or neither: with the model on, glslang's atomics (Device scope by
  // default) need vulkanMemoryModelDeviceScope.
  enabled.memoryModel.vulkanMemoryModel = enabled.memoryModel.vulkanMemoryModelDeviceScope =
      supported.memoryModel.vulkanMemoryModel && supported.memoryModel.vulkanMemoryModelDeviceScope;
  enabled.dot.shaderIntegerDotProduct = supported.dot.shaderIntegerDotProduct;
  enabled.cooperativeMatrix.cooperativeMatrix = supported.cooperativeMatrix.cooperativeMatrix;
  enabled.pipelineStatistics.pipelineExecutableInfo = supported.pipelineStatistics.pipelineExecutableInfo;
  d.pipelineStatistics = supported.pipelineStatistics.pipelineExecutableInfo;

  auto available = deviceExtensions(d.physicalDevice);
  std::vector<const char*> extensions = has.toEnable;
  if (d.info.apiVersion < VK_API_VERSION_1_2) {
    for (const char* e : {VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME, VK_KHR_8BIT_STORAGE_EXTENSION_NAME,
                          VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME})
      if (hasExtension(available, e)) extensions.push_back(e);
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = d.queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  deviceInfo.pNext = &enabled.core;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  deviceInfo.ppEnabledExtensionNames = extensions.data();
  detail::check(vkCreateDevice(d.physicalDevice, &deviceInfo, nullptr, &d.device), "vkCreateDevice");
  createCommonObjects(d, options);
  return self;
} catch (...) {
  detail::rethrowAsError("Device", "create");
}

std::shared_ptr<Device> Device::adopt(VkInstance instance, VkPhysicalDevice physicalDevice, VkDevice device,
                                      VkQueue queue, uint32_t queueFamilyIndex, const DeviceOptions& options) try {
  if (!instance || !physicalDevice || !device || !queue)
    throw Error(ErrorCode::InvalidArgument, "Device", "adopt", "every handle must be non-null");
  auto lock = lockLoader();
  volkLoadInstanceOnly(instance);
  std::shared_ptr<Device> self(new Device());
  Impl& d = *self->impl_;
  d.instance = instance;
  d.physicalDevice = physicalDevice;
  d.device = device;
  d.queueFamily = queueFamilyIndex;
  readInfo(d);
  // The application's VkDevice may not have enabled these optional features.
  d.info.integerDotProduct = d.info.cooperativeMatrixNV = d.info.cooperativeMatrixInt8 = false;
  createCommonObjects(d, options);
  d.queue = queue;
  return self;
} catch (...) {
  detail::rethrowAsError("Device", "adopt");
}

const DeviceInfo& Device::info() const noexcept {
  return impl_->info;
}
VkInstance Device::instance() const noexcept {
  return impl_->instance;
}
VkPhysicalDevice Device::physicalDevice() const noexcept {
  return impl_->physicalDevice;
}
VkDevice Device::device() const noexcept {
  return impl_->device;
}
VkQueue Device::queue() const noexcept {
  return impl_->queue;
}
uint32_t Device::queueFamilyIndex() const noexcept {
  return impl_->queueFamily;
}
std::unique_lock<std::mutex> Device::lockQueue() try {
  return std::unique_lock<std::mutex>(impl_->submitMutex);
} catch (...) {
  detail::rethrowAsError("Device", "lockQueue");
}
uint64_t Device::validationMessageCount() const noexcept {
  return impl_->validationMessages;
}

uint32_t Device::Impl::memoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred) const {
  for (VkMemoryPropertyFlags want : {required | preferred, required})
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
      if ((typeBits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) return i;
  throw Error(ErrorCode::Unsupported, "Device", "memoryType", "no suitable memory type");
}

void Device::Impl::submitAndWait(const std::function<void(VkCommandBuffer)>& record) {
  // A recorder that submits through the same device would wait for itself.
  static thread_local const Impl* recording = nullptr;
  if (recording == this)
    throw Error(ErrorCode::InvalidArgument, "Device", "submitAndWait",
                "Device: submitAndWait: the function that records must not submit work to the same device "
                "(execute, Buffer::upload, compileOperator, ...)");
  std::lock_guard<std::mutex> lock(submitMutex);
  struct Recording {
    const Impl* previous = recording;
    ~Recording() { recording = previous; }
  } restoreLater;
  recording = this;
  if (lost)
    throw Error(ErrorCode::DeviceLost, "Device", "submit",
                "an earlier submission failed and the device could not be drained: it is lost");
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = commandPool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  detail::check(vk.vkAllocateCommandBuffers(device, &allocate, &cmd), "vkAllocateCommandBuffers");
  // Freed on the way out, whatever throws, unless the GPU may still use it.
  struct Free {
    Impl* d;
    VkCommandBuffer cmd;
    bool pending = false;
    ~Free() {
      if (!pending) d->vk.vkFreeCommandBuffers(d->device, d->commandPool, 1, &cmd);
    }
  } freeLater{this, cmd};
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  detail::check(vk.vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  record(cmd);  // a recording command buffer may be freed if this throws
  detail::check(vk.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  // Reset before use rather than after: a failed reset leaves nothing pending.
  detail::check(vk.vkResetFences(device, 1, &fence), "vkResetFences");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  detail::check(vk.vkQueueSubmit(queue, 1, &submit, fence), "vkQueueSubmit");
  const VkResult waited = vk.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
  if (waited != VK_SUCCESS && vk.vkDeviceWaitIdle(device) != VK_SUCCESS) {
    // The command buffer and the fence may still be in use: keep them (the
    // pool and the fence go with the device) and refuse further submissions.
    freeLater.pending = true;
    lost = true;
  }
  detail::check(waited, "vkWaitForFences");
}

void Device::submitAndWait(const std::function<void(VkCommandBuffer)>& record) {
  std::exception_ptr fromRecord;  // passes through unchanged
  try {
    impl_->submitAndWait([&](VkCommandBuffer cmd) {
      try {
        record(cmd);
      } catch (...) {
        fromRecord = std::current_exception();
        throw;
      }
    });
  } catch (...) {
    if (fromRecord) std::rethrow_exception(fromRecord);
    detail::rethrowAsError("Device", "submitAndWait");
  }
}

// ---------------------------------------------------------------- buffers

Buffer::Impl::~Impl() {
  if (!device) return;
  auto& d = device->impl();
  if (mapped) d.vk.vkUnmapMemory(d.device, memory);
  if (owned) {
    d.vk.vkDestroyBuffer(d.device, buffer, nullptr);
    d.vk.vkFreeMemory(d.device, memory, nullptr);
  }
}

namespace {
[[noreturn]] void throwOutOfMemory(uint64_t bytes, const std::string& why) {
  throw Error(ErrorCode::OutOfMemory, "Buffer", "size",
              detail::concat("Buffer: size: cannot allocate ", bytes, " bytes: ", why));
}

bool outOfMemory(VkResult r) {
  return r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY;
}
}  // namespace

std::shared_ptr<Buffer::Impl> allocateBuffer(const std::shared_ptr<Device>& device, uint64_t bytes, bool hostVisible) {
  auto& d = device->impl();
  if (bytes == 0) throw Error(ErrorCode::InvalidArgument, "Buffer", "size", "a buffer needs at least 1 byte");
  // Sizes the device cannot hold never reach the driver: passing them is
  // invalid usage (VUID-VkBufferCreateInfo-size-06409,
  // VUID-vkAllocateMemory-pAllocateInfo-01713), not a defined failure.
  if (d.info.maxBufferSize && bytes > d.info.maxBufferSize)
    throwOutOfMemory(bytes, detail::concat("the device's maxBufferSize is ", d.info.maxBufferSize));
  uint64_t largestHeap = 0;
  for (uint32_t i = 0; i < d.memory.memoryHeapCount; ++i)
    largestHeap = std::max<uint64_t>(largestHeap, d.memory.memoryHeaps[i].size);
  if (bytes > largestHeap)
    throwOutOfMemory(bytes, detail::concat("the device's largest memory heap holds ", largestHeap));
  auto b = std::make_shared<Buffer::Impl>();
  b->size = bytes;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = d.vk.vkCreateBuffer(d.device, &info, nullptr, &b->buffer);
  if (outOfMemory(r)) throwOutOfMemory(bytes, "vkCreateBuffer ran out of memory");
  detail::check(r, "vkCreateBuffer");
  b->device = device;  // from here on the destructor releases what exists
  VkMemoryRequirements req;
  d.vk.vkGetBufferMemoryRequirements(d.device, b->buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.pNext = &flags;
  allocate.allocationSize = req.size;
  allocate.memoryTypeIndex =
      hostVisible ? d.memoryType(req.memoryTypeBits,
                                 VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0)
                  : d.memoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  const uint32_t heap = d.memory.memoryTypes[allocate.memoryTypeIndex].heapIndex;
  const uint64_t heapSize = d.memory.memoryHeaps[heap].size;
  if (req.size > heapSize)
    throwOutOfMemory(bytes,
                     detail::concat("it takes ", req.size, " bytes of memory heap ", heap, ", which holds ", heapSize));
  // maxMemoryAllocationSize is advisory (NVIDIA reports 4 GiB and allocates
  // more): larger sizes up to the heap's are tried, and a refusal is OutOfMemory.
  r = d.vk.vkAllocateMemory(d.device, &allocate, nullptr, &b->memory);
  if (outOfMemory(r))
    throwOutOfMemory(bytes, detail::concat("the driver refused (memory heap ", heap, " holds ", heapSize,
                                           " bytes; maxMemoryAllocationSize is ", d.info.maxMemoryAllocationSize, ")"));
  detail::check(r, "vkAllocateMemory");
  detail::check(d.vk.vkBindBufferMemory(d.device, b->buffer, b->memory, 0), "vkBindBufferMemory");
  if (hostVisible) detail::check(d.vk.vkMapMemory(d.device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped), "vkMapMemory");
  VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  address.buffer = b->buffer;
  b->address = d.vk.vkGetBufferDeviceAddress(d.device, &address);
  return b;
}

Buffer Device::createBuffer(uint64_t bytes) try {
  return Buffer(allocateBuffer(shared_from_this(), bytes, false));
} catch (...) {
  detail::rethrowAsError("Device", "createBuffer");
}

Buffer Device::wrapBuffer(VkBuffer buffer, uint64_t bytes) try {
  if (!buffer || !bytes) throw Error(ErrorCode::InvalidArgument, "Buffer", "wrap", "a null buffer or zero size");
  // The buffer's own size is not queryable; its memory requirements bound it.
  VkMemoryRequirements req;
  impl_->vk.vkGetBufferMemoryRequirements(impl_->device, buffer, &req);
  if (bytes > req.size)
    throw Error(ErrorCode::InvalidArgument, "Buffer", "wrap",
                detail::concat("Buffer: wrap: ", bytes, " bytes exceed the buffer's ", req.size));
  auto b = std::make_shared<Buffer::Impl>();
  b->device = shared_from_this();
  b->buffer = buffer;
  b->size = bytes;
  b->owned = false;
  VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  address.buffer = buffer;
  b->address = impl_->vk.vkGetBufferDeviceAddress(impl_->device, &address);
  return Buffer(b);
} catch (...) {
  detail::rethrowAsError("Device", "wrapBuffer");
}

uint64_t Buffer::size() const noexcept {
  return impl_ ? impl_->size : 0;
}
VkBuffer Buffer::handle() const noexcept {
  return impl_ ? impl_->buffer : VK_NULL_HANDLE;
}
VkDeviceAddress Buffer::address() const noexcept {
  return impl_ ? impl_->address : 0;
}

namespace {
void checkRange(const Buffer::Impl* b, uint64_t bytes, uint64_t offset, const char* what) {
  if (!b) throw Error(ErrorCode::InvalidArgument, "Buffer", what, "the buffer is empty");
  if (offset > b->size || bytes > b->size - offset)
    throw Error(ErrorCode::InvalidArgument, "Buffer", what,
                detail::concat("range [", offset, ", ", offset + bytes, ") exceeds the buffer's ", b->size, " bytes"));
}

void checkHostPointer(const void* data, uint64_t bytes, const char* what) {
  if (bytes && !data) throw Error(ErrorCode::InvalidArgument, "Buffer", what, "the host pointer is null");
}

void barrierAll(const VolkDeviceTable& vk, VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                          VK_ACCESS_TRANSFER_WRITE_BIT;
  vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                          nullptr, 0, nullptr);
}
}  // namespace

void Buffer::upload(const void* data, uint64_t bytes, uint64_t offset) try {
  checkRange(impl_.get(), bytes, offset, "upload");
  checkHostPointer(data, bytes, "upload");
  if (!bytes) return;
  auto& d = impl_->device->impl();
  auto staging = allocateBuffer(impl_->device, std::min(bytes, kStagingChunk), true);
  for (uint64_t done = 0; done < bytes; done += kStagingChunk) {
    uint64_t n = std::min(kStagingChunk, bytes - done);
    std::memcpy(staging->mapped, static_cast<const uint8_t*>(data) + done, n);
    d.submitAndWait([&](VkCommandBuffer cmd) {
      VkBufferCopy region{0, offset + done, n};
      d.vk.vkCmdCopyBuffer(cmd, staging->buffer, impl_->buffer, 1, &region);
      barrierAll(d.vk, cmd);
    });
  }
} catch (...) {
  detail::rethrowAsError("Buffer", "upload");
}

void Buffer::download(void* data, uint64_t bytes, uint64_t offset) const try {
  checkRange(impl_.get(), bytes, offset, "download");
  checkHostPointer(data, bytes, "download");
  if (!bytes) return;
  auto& d = impl_->device->impl();
  auto staging = allocateBuffer(impl_->device, std::min(bytes, kStagingChunk), true);
  for (uint64_t done = 0; done < bytes; done += kStagingChunk) {
    uint64_t n = std::min(kStagingChunk, bytes - done);
    d.submitAndWait([&](VkCommandBuffer cmd) {
      barrierAll(d.vk, cmd);
      VkBufferCopy region{offset + done, 0, n};
      d.vk.vkCmdCopyBuffer(cmd, impl_->buffer, staging->buffer, 1, &region);
      VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
      d.vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                                nullptr, 0, nullptr);
    });
    std::memcpy(static_cast<uint8_t*>(data) + done, staging->mapped, n);
  }
} catch (...) {
  detail::rethrowAsError("Buffer", "download");
}

void Buffer::fill(uint32_t word, uint64_t bytes, uint64_t offset) try {
  checkRange(impl_.get(), bytes, offset, "fill");
  if (offset % 4 || bytes % 4)
    throw Error(ErrorCode::InvalidArgument, "Buffer", "fill", "offset and size must be multiples of 4");
  if (!bytes) return;
  auto& d = impl_->device->impl();
  d.submitAndWait([&](VkCommandBuffer cmd) {
    d.vk.vkCmdFillBuffer(cmd, impl_->buffer, offset, bytes, word);
    barrierAll(d.vk, cmd);
  });
} catch (...) {
  detail::rethrowAsError("Buffer", "fill");
}

// ---------------------------------------------------------------- pipelines

detail::Pipeline::~Pipeline() {
  vk.vkDestroyPipeline(device, handle, nullptr);
  vk.vkDestroyPipelineCache(device, binary, nullptr);
}

VkShaderModule Device::Impl::shaderModule(detail::Kernel kernel) {
  auto found = modules.find(kernel);
  if (found != modules.end()) return found->second;
  const detail::KernelBinary& binary = detail::kernelBinary(kernel);
  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = binary.sizeInBytes;
  moduleInfo.pCode = binary.code;
#ifdef VKDML_KERNEL_OVERRIDE
  const std::vector<uint32_t> replacement = detail::kernelOverride(detail::kernelName(kernel));
  if (!replacement.empty()) {
    moduleInfo.codeSize = replacement.size() * 4;
    moduleInfo.pCode = replacement.data();
  }
#endif
  auto slot = modules.emplace(kernel, VK_NULL_HANDLE).first;  // first: nothing to leak if this throws
  const VkResult r = vk.vkCreateShaderModule(device, &moduleInfo, nullptr, &slot->second);
  if (r != VK_SUCCESS) {
    modules.erase(slot);
    detail::check(r, "vkCreateShaderModule");
  }
  return slot->second;
}

std::shared_ptr<const detail::Pipeline> Device::Impl::pipeline(detail::Kernel kernel,
                                                               const shader::Specialization& specialization) {
  std::lock_guard<std::mutex> lock(pipelinesMutex);
  PipelineKey key(kernel, specialization);
  auto found = pipelines.find(key);
  if (found != pipelines.end()) {
    recentUse.splice(recentUse.begin(), recentUse, found->second.use);
    ++pipelineHits;
    return found->second.pipeline;
  }

  const VkShaderModule module = shaderModule(kernel);
  // One 4-byte value per constant_id (the kernel's list in shaders/interface).
  std::vector<VkSpecializationMapEntry> entries(specialization.size());
  std::vector<uint32_t> values(specialization.size());
  for (uint32_t i = 0; i < entries.size(); ++i) {
    entries[i] = {specialization[i].first, i * 4u, 4u};
    values[i] = specialization[i].second;
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), values.size() * 4, values.data()};
  VkComputePipelineCreateInfo pipelineInfo{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipelineInfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = module;
  pipelineInfo.stage.pName = "main";
  pipelineInfo.stage.pSpecializationInfo = &spec;
  pipelineInfo.layout = pipelineLayout;
  if (pipelineStatistics) pipelineInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  auto p = std::make_shared<detail::Pipeline>(vk, device);  // releases what exists if anything below throws
  VkPipelineCache into = pipelineCache;
  if (pipelineCacheRoom == 0) into = p->binary = createPipelineCache(*this, {});
  detail::check(vk.vkCreateComputePipelines(device, into, 1, &pipelineInfo, nullptr, &p->handle),
                "vkCreateComputePipelines");
  if (into == pipelineCache) --pipelineCacheRoom;
  ++pipelineMisses;
  if (pipelineStatistics) printStatistics(kernel, p->handle);
  if (pipelineCacheLimit > 0) {
    auto entry = pipelines.emplace(std::move(key), CachedPipeline{p, recentUse.end()}).first;
    try {
      recentUse.push_front(&entry->first);
    } catch (...) {
      pipelines.erase(entry);
      throw;
    }
    entry->second.use = recentUse.begin();
    trimPipelines(pipelineCacheLimit);
  }
  return p;
}

void Device::Impl::trimPipelines(size_t keep) {
  while (pipelines.size() > keep) {
    const PipelineKey* oldest = recentUse.back();
    recentUse.pop_back();
    pipelines.erase(pipelines.find(*oldest));
  }
}

Device::PipelineCacheStats Device::pipelineCacheStats() const try {
  std::lock_guard<std::mutex> lock(impl_->pipelinesMutex);
  return {impl_->pipelines.size(), impl_->pipelineHits, impl_->pipelineMisses};
} catch (...) {
  detail::rethrowAsError("Device", "pipelineCacheStats");
}

void Device::trimPipelineCache(size_t keep) try {
  Impl& d = *impl_;
  std::lock_guard<std::mutex> lock(d.pipelinesMutex);
  d.trimPipelines(keep);
  if (keep == 0) {  // the driver's cache too: pipelines made from it do not need it
    VkPipelineCache empty = createPipelineCache(d, {});
    d.vk.vkDestroyPipelineCache(d.device, d.pipelineCache, nullptr);
    d.pipelineCache = empty;
    d.pipelineCacheRoom = d.pipelineCacheLimit;
  }
} catch (...) {
  detail::rethrowAsError("Device", "trimPipelineCache");
}

std::vector<uint8_t> Device::pipelineCacheData() const try {
  const Impl& d = *impl_;
  std::lock_guard<std::mutex> lock(d.pipelinesMutex);
  // The shared cache and the binaries of the cached pipelines that are not
  // in it, merged into a cache of their own.
  std::vector<VkPipelineCache> sources{d.pipelineCache};
  for (const auto& entry : d.pipelines)
    if (entry.second.pipeline->binary) sources.push_back(entry.second.pipeline->binary);
  struct Merged {
    const Impl& d;
    VkPipelineCache cache;
    ~Merged() { d.vk.vkDestroyPipelineCache(d.device, cache, nullptr); }
  } merged{d, createPipelineCache(d, {})};
  detail::check(
      d.vk.vkMergePipelineCaches(d.device, merged.cache, static_cast<uint32_t>(sources.size()), sources.data()),
      "vkMergePipelineCaches");
  size_t size = 0;
  detail::check(d.vk.vkGetPipelineCacheData(d.device, merged.cache, &size, nullptr), "vkGetPipelineCacheData");
  std::vector<uint8_t> data(size);
  detail::check(d.vk.vkGetPipelineCacheData(d.device, merged.cache, &size, data.data()), "vkGetPipelineCacheData");
  data.resize(size);
  return data;
} catch (...) {
  detail::rethrowAsError("Device", "pipelineCacheData");
}

// The driver's statistics of a pipeline (registers, spills, ...), for tuning.
void Device::Impl::printStatistics(detail::Kernel kernel, VkPipeline pipeline) {
  VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
  executable.pipeline = pipeline;
  uint32_t count = 0;
  vk.vkGetPipelineExecutableStatisticsKHR(device, &executable, &count, nullptr);
  std::vector<VkPipelineExecutableStatisticKHR> statistics(count,
                                                           {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
  vk.vkGetPipelineExecutableStatisticsKHR(device, &executable, &count, statistics.data());
  for (const auto& s : statistics) {
    std::fprintf(stderr, "vkdml: %s: %s = ", detail::kernelName(kernel), s.name);
    switch (s.format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        std::fprintf(stderr, "%u\n", s.value.b32);
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        std::fprintf(stderr, "%lld\n", (long long)s.value.i64);
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        std::fprintf(stderr, "%llu\n", (unsigned long long)s.value.u64);
        break;
      default:
        std::fprintf(stderr, "%g\n", s.value.f64);
    }
  }
}

}  // namespace vkdml
