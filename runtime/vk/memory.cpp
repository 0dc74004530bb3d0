// Buffers: allocation within the device's limits, upload, download, fill.
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "core/guard.hpp"
#include "core/memory_types.hpp"
#include "device_impl.hpp"

namespace vkdml {

namespace {
constexpr uint64_t kStagingChunk = 64ull << 20;
}  // namespace

Buffer::Impl::~Impl() {
  if (!device) return;
  auto& d = detail::Access::impl(*device);
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

std::shared_ptr<Buffer::Impl> allocateBuffer(const std::shared_ptr<Device>& device, uint64_t bytes,
                                             detail::BufferUse use) {
  auto& d = detail::Access::impl(*device);
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
  const std::vector<uint32_t> types = detail::memoryTypeOrder(d.memory, req.memoryTypeBits, use);
  if (types.empty()) throw Error(ErrorCode::Unsupported, "Device", "memoryType", "no suitable memory type");
  for (uint32_t type : types) {
    const bool last = type == types.back();
    const uint32_t heap = d.memory.memoryTypes[type].heapIndex;
    const uint64_t heapSize = d.memory.memoryHeaps[heap].size;
    if (req.size > heapSize) {
      if (!last) continue;
      throwOutOfMemory(
          bytes, detail::concat("it takes ", req.size, " bytes of memory heap ", heap, ", which holds ", heapSize));
    }
    // maxMemoryAllocationSize is advisory (NVIDIA reports 4 GiB and allocates
    // more): larger sizes up to the heap's are tried, and a refusal is OutOfMemory.
    allocate.memoryTypeIndex = type;
    r = d.vk.vkAllocateMemory(d.device, &allocate, nullptr, &b->memory);
    if (r != VK_SUCCESS) b->memory = VK_NULL_HANDLE;  // undefined on failure: the destructor frees it
    if (outOfMemory(r) && !last) continue;
    if (outOfMemory(r))
      throwOutOfMemory(bytes,
                       detail::concat("the driver refused (memory heap ", heap, " holds ", heapSize,
                                      " bytes; maxMemoryAllocationSize is ", d.info.maxMemoryAllocationSize, ")"));
    detail::check(r, "vkAllocateMemory");
    break;
  }
  detail::check(d.vk.vkBindBufferMemory(d.device, b->buffer, b->memory, 0), "vkBindBufferMemory");
  if (use != detail::BufferUse::Device)
    detail::check(d.vk.vkMapMemory(d.device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped), "vkMapMemory");
  VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  address.buffer = b->buffer;
  b->address = d.vk.vkGetBufferDeviceAddress(d.device, &address);
  return b;
}

Buffer Device::createBuffer(uint64_t bytes) try {
  return Buffer(allocateBuffer(shared_from_this(), bytes, detail::BufferUse::Device));
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
  auto& d = detail::Access::impl(*impl_->device);
  auto staging = allocateBuffer(impl_->device, std::min(bytes, kStagingChunk), detail::BufferUse::Upload);
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
  auto& d = detail::Access::impl(*impl_->device);
  auto staging = allocateBuffer(impl_->device, std::min(bytes, kStagingChunk), detail::BufferUse::Readback);
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
  auto& d = detail::Access::impl(*impl_->device);
  d.submitAndWait([&](VkCommandBuffer cmd) {
    d.vk.vkCmdFillBuffer(cmd, impl_->buffer, offset, bytes, word);
    barrierAll(d.vk, cmd);
  });
} catch (...) {
  detail::rethrowAsError("Buffer", "fill");
}

}  // namespace vkdml
