// The Device: its creation in steps (vk/setup.hpp), adoption, destruction
// and submission.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/guard.hpp"
#include "ops/operators.hpp"
#include "setup.hpp"

namespace vkdml {

namespace detail {
void throwVulkan(VkResult result, const char* call) {
  ErrorCode code = ErrorCode::VulkanError;
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) code = ErrorCode::OutOfMemory;
  if (result == VK_ERROR_DEVICE_LOST) code = ErrorCode::DeviceLost;
  throw Error(code, "Vulkan", call, concat(call, " failed with VkResult ", static_cast<int>(result)));
}
}  // namespace detail

namespace {

constexpr uint32_t kPushConstantBytes = sizeof(shader::PushConstants);  // {params address, binding-table address}

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
    if (r != VK_SUCCESS) d.pipelineCache = VK_NULL_HANDLE;  // undefined on failure
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
      detail::check(r, "vkCreatePipelineCache");
    d.info.pipelineCacheLoaded = r == VK_SUCCESS;
  }
  if (!d.pipelineCache) d.pipelineCache = detail::createPipelineCache(d, {});
  d.pipelineCacheLimit = d.pipelineCacheRoom = options.pipelineCacheLimit;
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = d.queueFamily;
  detail::check(d.vk.vkCreateCommandPool(d.device, &pool, nullptr, &d.commandPool), "vkCreateCommandPool");
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  detail::check(d.vk.vkCreateFence(d.device, &fence, nullptr, &d.fence), "vkCreateFence");
}

}  // namespace

Device::Device() : impl_(std::make_unique<Impl>()) {}

Device::~Device() {
  if (impl_) impl_->destroy();
}

void Device::Impl::destroy() {
  if (device) {
    // A Device that failed between taking its VkDevice and loading the
    // device's functions (createCommonObjects) still has to release it.
    if (!vk.vkDeviceWaitIdle) volkLoadDeviceTable(&vk, device);
    // An adopted VkDevice's other queues are the application's, and
    // vkDeviceWaitIdle would need them all held: wait for vkdml's queue.
    if (ownsDevice) {
      vk.vkDeviceWaitIdle(device);
    } else if (queue) {
      const std::lock_guard<std::mutex> lock(submitMutex);
      vk.vkQueueWaitIdle(queue);
    }
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

std::shared_ptr<Device> Device::create(const DeviceOptions& options) try {
  auto lock = detail::lockLoader();
  std::shared_ptr<Device> self(new Device());  // released before the lock on failure
  Impl& d = *self->impl_;
  d.ownsDevice = true;
  d.onValidationMessage = options.onValidationMessage;
  // The environment, read once: defaults for what options leave open.
  d.planDefaults = detail::planDefaultsFromEnvironment();
  const char* statistics = std::getenv("VKDML_PIPELINE_STATISTICS");
  d.wantPipelineStatistics = options.pipelineStatistics || (statistics && std::strcmp(statistics, "1") == 0);
  const bool validation = detail::createInstance(d, options);
  detail::selectPhysicalDevice(d, options);
  detail::readInfo(d);
  d.info.validationEnabled = validation;
  if (d.info.apiVersion < VK_API_VERSION_1_1)
    throw Error(ErrorCode::Unsupported, "Device", "apiVersion",
                detail::concat(d.info.name, " supports only Vulkan ", VK_API_VERSION_MAJOR(d.info.apiVersion), ".",
                               VK_API_VERSION_MINOR(d.info.apiVersion), "; vkdml needs 1.1"));

  detail::createLogicalDevice(d);
  createCommonObjects(d, options);
  return self;
} catch (...) {
  detail::rethrowAsError("Device", "create");
}

std::shared_ptr<Device> Device::adopt(VkInstance instance, VkPhysicalDevice physicalDevice, VkDevice device,
                                      VkQueue queue, uint32_t queueFamilyIndex, const DeviceOptions& options) try {
  if (!instance || !physicalDevice || !device || !queue)
    throw Error(ErrorCode::InvalidArgument, "Device", "adopt", "every handle must be non-null");
  auto lock = detail::lockLoader();
  volkLoadInstanceOnly(instance);
  std::shared_ptr<Device> self(new Device());
  Impl& d = *self->impl_;
  d.planDefaults = detail::planDefaultsFromEnvironment();
  d.instance = instance;
  d.physicalDevice = physicalDevice;
  d.device = device;
  d.queueFamily = queueFamilyIndex;
  detail::readInfo(d);
  // The application's VkDevice may not have enabled these optional features.
  d.info.integerDotProduct = d.info.cooperativeMatrixNV = d.info.cooperativeMatrixInt8 = false;
  d.info.cooperativeMatrixKHR = d.info.cooperativeMatrixKHRInt8 = false;
  createCommonObjects(d, options);
  d.queue = queue;
  return self;
} catch (...) {
  detail::rethrowAsError("Device", "adopt");
}

const DeviceInfo& Device::info() const noexcept {
  return impl_->info;
}

FeatureSupport Device::featureSupport() const try { return detail::featureSupport(impl_->info); } catch (...) {
  detail::rethrowAsError("Device", "featureSupport");
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
  impl_->refuseSubmitWhileRecording();  // the lock is held there
  return std::unique_lock<std::mutex>(impl_->submitMutex);
} catch (...) {
  detail::rethrowAsError("Device", "lockQueue");
}
uint64_t Device::validationMessageCount() const noexcept {
  return impl_->validationMessages;
}

namespace {
// The device whose submitAndWait is recording on this thread.
thread_local const Device::Impl* recording = nullptr;
}  // namespace

void Device::Impl::refuseSubmitWhileRecording() const {
  if (recording == this)
    throw Error(ErrorCode::InvalidArgument, "Device", "submitAndWait",
                "Device: submitAndWait: the function that records must not submit work to the same device "
                "(execute, Buffer::upload, compileOperator, ...)");
}

void Device::Impl::submitAndWait(const std::function<void(VkCommandBuffer)>& record) {
  refuseSubmitWhileRecording();
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
  if (waited != VK_SUCCESS && vk.vkQueueWaitIdle(queue) != VK_SUCCESS) {  // the queue this holds
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

}  // namespace vkdml
