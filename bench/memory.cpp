// volk's declarations come before vulkan.h's (which vkdml.hpp includes).
#include <volk.h>

#include "memory.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>

namespace bench {

std::vector<vkdml::Buffer> churn(vkdml::Device& device, double gib) {
  const auto start = std::chrono::steady_clock::now();
  const uint64_t total = static_cast<uint64_t>(gib * double(1u << 30));
  // Sizes in units of a quarter of the total, at most 1 GiB; none a multiple
  // of 2 MiB, some far larger than the others.
  const uint64_t unit = std::min<uint64_t>(uint64_t(1) << 30, std::max<uint64_t>(total / 4, 1u << 20));
  const uint64_t sizes[] = {
      unit, unit / 2 + 4096, unit * 3 / 20 + 12, 2 * unit + 65536, unit / 40 + 256, unit * 5 / 4 + 1024};
  std::vector<vkdml::Buffer> kept;
  uint64_t done = 0, largest = 0;
  size_t next = 0, count = 0;
  std::vector<uint8_t> bytes(4096, 0x5a);
  while (done < total) {
    std::vector<vkdml::Buffer> round;
    for (int i = 0; i < 3 && done < total; ++i) {
      const uint64_t size = std::min(sizes[next++ % std::size(sizes)], total - done) & ~uint64_t(3);
      if (size < 4096) break;
      round.push_back(device.createBuffer(size));
      round.back().fill(0x3F800000u, size);
      done += size;
      largest = std::max(largest, size);
      ++count;
    }
    if (round.empty()) break;
    round.front().upload(bytes.data(), bytes.size());
    // 64 KiB + 256 or 3 MiB + 4 KiB: kept, between the large ones freed.
    kept.push_back(device.createBuffer(kept.size() % 2 ? (uint64_t(3) << 20) + 4096 : 65536 + 256));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "churn: allocated, filled and freed %.2f GiB in %zu buffers (largest %.1f MiB), kept %zu small ones, "
      "%.2f s\n",
      double(done) / double(1u << 30), count, double(largest) / double(1u << 20), kept.size(), seconds);
  return kept;
}

void printMemoryInfo(vkdml::Device& device) {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(device.physicalDevice(), &memory);
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    std::printf("memory heap %u: %.1f GiB%s\n", i, double(memory.memoryHeaps[i].size) / double(1u << 30),
                memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT ? ", device-local" : "");
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags f = memory.memoryTypes[i].propertyFlags;
    std::printf("memory type %u: heap %u,%s%s%s%s\n", i, memory.memoryTypes[i].heapIndex,
                f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT ? " device-local" : "",
                f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT ? " host-visible" : "",
                f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT ? " host-coherent" : "",
                f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT ? " host-cached" : "");
  }
  // The usage vkdml's buffers have (runtime/device.cpp).
  for (uint64_t size : {uint64_t(65536) + 256, (uint64_t(3) << 20) + 4096, uint64_t(102760448), uint64_t(1) << 30}) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    if (vkCreateBuffer(device.device(), &info, nullptr, &buffer) != VK_SUCCESS) continue;
    VkBufferMemoryRequirementsInfo2 which{VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
    which.buffer = buffer;
    VkMemoryDedicatedRequirements dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 req{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
    req.pNext = &dedicated;
    vkGetBufferMemoryRequirements2(device.device(), &which, &req);
    std::printf(
        "buffer of %llu bytes: size %llu, alignment %llu, memory types 0x%x, dedicated: prefers %u, "
        "requires %u\n",
        static_cast<unsigned long long>(size), static_cast<unsigned long long>(req.memoryRequirements.size),
        static_cast<unsigned long long>(req.memoryRequirements.alignment), req.memoryRequirements.memoryTypeBits,
        dedicated.prefersDedicatedAllocation, dedicated.requiresDedicatedAllocation);
    vkDestroyBuffer(device.device(), buffer, nullptr);
  }
}

}  // namespace bench
