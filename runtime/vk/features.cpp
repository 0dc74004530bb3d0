// The device's features and properties (DeviceInfo), and the VkDevice with
// what vkdml needs enabled.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/plan.hpp"
#include "khr_cooperative_matrix.hpp"
#include "setup.hpp"

namespace vkdml {
namespace detail {

bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

namespace {

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice physicalDevice) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> list(count);
  vkEnumerateDeviceExtensionProperties(physicalDevice, nullptr, &count, list.data());
  return list;
}

// Optional device capabilities, by core version or extension.
struct OptionalExtensions {
  bool memoryModel = false, dot = false, cooperativeMatrixNV = false, cooperativeMatrixKHR = false;
  bool subgroupSizeControl = false;
  bool pipelineStatistics = false;    // where asked for (Impl::wantPipelineStatistics)
  bool maintenance4 = false;          // its properties are read (maxBufferSize); nothing is enabled
  bool driverProperties = false;      // likewise (the driver's name and id)
  bool smBuiltins = false;            // likewise (the multiprocessor count)
  bool shaderClock = false;           // kernel development builds: the timeline kernels' clocks
  std::vector<const char*> toEnable;  // the extensions that provide them below the core version
};

OptionalExtensions optionalExtensions(VkPhysicalDevice physicalDevice, uint32_t apiVersion, bool statistics) {
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
  o.cooperativeMatrixKHR = byVersionOrExtension(~0u, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
  o.subgroupSizeControl = byVersionOrExtension(VK_API_VERSION_1_3, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  if (statistics)
    o.pipelineStatistics = byVersionOrExtension(~0u, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  o.maintenance4 = apiVersion >= VK_API_VERSION_1_3 || hasExtension(available, VK_KHR_MAINTENANCE_4_EXTENSION_NAME);
  o.driverProperties =
      apiVersion >= VK_API_VERSION_1_2 || hasExtension(available, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  o.smBuiltins = hasExtension(available, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
#ifdef VKDML_KERNEL_OVERRIDE
  // Kernels from VKDML_KERNEL_DIR may read clocks (tools/kernel_timeline).
  o.shaderClock = byVersionOrExtension(~0u, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
#endif
  return o;
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
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR cooperativeMatrixKHR{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceSubgroupSizeControlFeatures subgroupSizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pipelineStatistics{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceShaderClockFeaturesKHR shaderClock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
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
    if (has.cooperativeMatrixKHR) append(cooperativeMatrixKHR);
    if (has.subgroupSizeControl) append(subgroupSizeControl);
    if (has.pipelineStatistics) append(pipelineStatistics);
    if (has.shaderClock) append(shaderClock);
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

// The subgroup-scope int8 shapes (s8 x s8 -> s32, no saturation) the
// device lists for VK_KHR_cooperative_matrix.
std::vector<DeviceInfo::MatrixShape> int8CooperativeMatrixShapesKHR(VkInstance instance,
                                                                    VkPhysicalDevice physicalDevice) {
  auto get = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  std::vector<DeviceInfo::MatrixShape> shapes;
  if (!get) return shapes;
  uint32_t count = 0;
  get(physicalDevice, &count, nullptr);
  VkCooperativeMatrixPropertiesKHR blank{};
  blank.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
  std::vector<VkCooperativeMatrixPropertiesKHR> list(count, blank);
  get(physicalDevice, &count, list.data());
  list.resize(count);
  for (const auto& p : list)
    if (p.AType == VK_COMPONENT_TYPE_SINT8_NV && p.BType == VK_COMPONENT_TYPE_SINT8_NV &&
        p.CType == VK_COMPONENT_TYPE_SINT32_NV && p.ResultType == VK_COMPONENT_TYPE_SINT32_NV &&
        !p.saturatingAccumulation && p.scope == VK_SCOPE_SUBGROUP_NV)
      shapes.push_back({p.MSize, p.NSize, p.KSize});
  return shapes;
}

}  // namespace

void readInfo(Device::Impl& d) {
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceShaderIntegerDotProductProperties dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES};
  VkPhysicalDeviceMaintenance4Properties maintenance4{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlProperties sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  vkGetPhysicalDeviceProperties2(d.physicalDevice, &properties);  // the version first
  const OptionalExtensions has =
      optionalExtensions(d.physicalDevice, properties.properties.apiVersion, d.wantPipelineStatistics);
  properties.pNext = &subgroup;
  subgroup.pNext = &maintenance3;
  void** tail = &maintenance3.pNext;
  if (has.dot) {
    *tail = &dot;
    tail = &dot.pNext;
  }
  if (has.subgroupSizeControl) {
    *tail = &sizeControl;
    tail = &sizeControl.pNext;
  }
  if (has.maintenance4) {
    *tail = &maintenance4;
    tail = &maintenance4.pNext;
  }
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  if (has.smBuiltins) {
    *tail = &sm;
    tail = &sm.pNext;
  }
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  const bool hasDriver = has.driverProperties;
  if (hasDriver) *tail = &driver;
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
  if (hasDriver) {
    i.driverId = driver.driverID;
    i.driverVersion = properties.properties.driverVersion;
    i.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  }
  i.subgroupSize = subgroup.subgroupSize;
  // A required size needs the feature, compute among the stages that take
  // one, and full subgroups (the kernels' warps are whole subgroups).
  const bool chooseSize = has.subgroupSizeControl && f.subgroupSizeControl.subgroupSizeControl &&
                          f.subgroupSizeControl.computeFullSubgroups &&
                          (sizeControl.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
  i.minSubgroupSize = chooseSize ? sizeControl.minSubgroupSize : subgroup.subgroupSize;
  i.maxSubgroupSize = chooseSize ? sizeControl.maxSubgroupSize : subgroup.subgroupSize;
  i.subgroupShuffleRelative = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                              (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT);
  i.maxComputeSharedMemorySize = limits.maxComputeSharedMemorySize;
  i.maxComputeWorkGroupCountX = limits.maxComputeWorkGroupCount[0];
  i.maxComputeWorkGroupSizeX = std::min(limits.maxComputeWorkGroupSize[0], limits.maxComputeWorkGroupInvocations);
  i.maxStorageBufferRange = limits.maxStorageBufferRange;
  i.maxMemoryAllocationSize = maintenance3.maxMemoryAllocationSize;
  i.maxBufferSize = has.maintenance4 ? maintenance4.maxBufferSize : 0;
  i.multiprocessors = has.smBuiltins ? sm.shaderSMCount : 0;
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
  i.cooperativeMatrixKHR = has.cooperativeMatrixKHR && f.cooperativeMatrixKHR.cooperativeMatrix;
  if (i.cooperativeMatrixKHR)
    i.cooperativeMatrixKHRInt8Shapes = int8CooperativeMatrixShapesKHR(d.instance, d.physicalDevice);
  // The KHR kernels are the NV ones translated, one per fragment shape they take.
  i.cooperativeMatrixKHRInt8 = i.cooperativeMatrixKHR && i.shaderInt8 && i.vulkanMemoryModel &&
                               khrFragment(i.cooperativeMatrixKHRInt8Shapes) != nullptr;
}

void createLogicalDevice(Device::Impl& d) {
  // Features every kernel relies on: device addresses (no descriptor sets,
  // no maxStorageBufferRange limit), 64-bit address arithmetic, and 8/16-bit
  // loads and stores for data movement of 1- and 2-byte elements.
  const OptionalExtensions has = optionalExtensions(d.physicalDevice, d.info.apiVersion, d.wantPipelineStatistics);
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
  enabled.cooperativeMatrixKHR.cooperativeMatrix = supported.cooperativeMatrixKHR.cooperativeMatrix;
  enabled.subgroupSizeControl.subgroupSizeControl = supported.subgroupSizeControl.subgroupSizeControl;
  enabled.subgroupSizeControl.computeFullSubgroups = supported.subgroupSizeControl.computeFullSubgroups;
  enabled.pipelineStatistics.pipelineExecutableInfo = supported.pipelineStatistics.pipelineExecutableInfo;
  d.pipelineStatistics = supported.pipelineStatistics.pipelineExecutableInfo;
  enabled.shaderClock.shaderSubgroupClock = supported.shaderClock.shaderSubgroupClock;
  enabled.shaderClock.shaderDeviceClock = supported.shaderClock.shaderDeviceClock;

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
  // The layer calls the extension unsupported and its feature struct unknown.
  static const char* const kCooperativeMatrixKHR[] = {VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME, "(1000506000)",
                                                      nullptr};
  const detail::LayerPredates predates(has.cooperativeMatrixKHR, kCooperativeMatrixKHR);
  detail::check(vkCreateDevice(d.physicalDevice, &deviceInfo, nullptr, &d.device), "vkCreateDevice");
}

}  // namespace detail
}  // namespace vkdml
