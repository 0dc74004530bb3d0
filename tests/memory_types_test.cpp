// Which memory type each kind of buffer takes (runtime/core/memory_types.hpp),
// against the memory tables drivers report.
#include <doctest/doctest.h>

#include <vector>

#include "../runtime/core/memory_types.hpp"

using vkdml::detail::BufferUse;
using vkdml::detail::memoryTypeOrder;

namespace {
constexpr VkMemoryPropertyFlags kDevice = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;

VkPhysicalDeviceMemoryProperties table(const std::vector<VkMemoryPropertyFlags>& types) {
  VkPhysicalDeviceMemoryProperties memory{};
  memory.memoryTypeCount = static_cast<uint32_t>(types.size());
  for (size_t i = 0; i < types.size(); ++i) memory.memoryTypes[i] = {types[i], (types[i] & kDevice) ? 0u : 1u};
  memory.memoryHeapCount = 2;
  return memory;
}
}  // namespace

TEST_CASE("device: each kind of buffer takes the memory type its use prefers, with a fallback where it is a hint") {
  // The H100's table (driver 580.159.04, vkdml_bench --memory-info).
  const auto nvidia = table({0, kDevice, kHost, kHost | kCached, kDevice | kHost});
  CHECK(memoryTypeOrder(nvidia, 0x1f, BufferUse::Device) == std::vector<uint32_t>{1});
  CHECK(memoryTypeOrder(nvidia, 0x1f, BufferUse::Upload) == std::vector<uint32_t>{2});
  CHECK(memoryTypeOrder(nvidia, 0x1f, BufferUse::Readback) == std::vector<uint32_t>{3, 2});
  CHECK(memoryTypeOrder(nvidia, 0x1f, BufferUse::Table) == std::vector<uint32_t>{4, 2});
  // A buffer that may not take some types.
  CHECK(memoryTypeOrder(nvidia, 0x0f, BufferUse::Table) == std::vector<uint32_t>{2});
  CHECK(memoryTypeOrder(nvidia, 0x13, BufferUse::Table) == std::vector<uint32_t>{4});
  CHECK(memoryTypeOrder(nvidia, 0x03, BufferUse::Upload).empty());
  // No device-local type: a device buffer takes any.
  const auto noDeviceLocal = table({kHost, kHost | kCached});
  CHECK(memoryTypeOrder(noDeviceLocal, 0x3, BufferUse::Device) == std::vector<uint32_t>{0});
  CHECK(memoryTypeOrder(noDeviceLocal, 0x3, BufferUse::Table) == std::vector<uint32_t>{0});
  // One type with every flag (a CPU device): every use takes it, once.
  const auto cpu = table({kDevice | kHost | kCached});
  for (BufferUse use : {BufferUse::Device, BufferUse::Upload, BufferUse::Readback, BufferUse::Table})
    CHECK(memoryTypeOrder(cpu, 0x1, use) == std::vector<uint32_t>{0});
}
