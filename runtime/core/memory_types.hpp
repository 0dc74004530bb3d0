// Which memory type a buffer takes, by who writes and reads it. Pure (no
// Vulkan calls), so the tests check the choice against drivers' tables.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "vkdml/vkdml.hpp"  // Vulkan's types

namespace vkdml {
namespace detail {

// Who writes and reads a buffer. The host-visible ones are mapped for the
// buffer's life.
enum class BufferUse {
  Device,    // the GPU alone: device-local
  Upload,    // the host writes, one copy reads: host-visible
  Readback,  // the GPU writes, the host reads: host-visible, host-cached where offered
  // The host writes, every dispatch's shaders read (binding tables):
  // host-visible, device-local where offered, so shaders do not read across
  // the bus. The host only writes it: device-local mappings are uncached.
  Table,
};

// The first memory type of `typeBits` with every flag of `want`.
inline std::optional<uint32_t> firstMemoryType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                                               VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < memory.memoryTypeCount && i < 32; ++i)
    if ((typeBits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) return i;
  return std::nullopt;
}

// The memory types a buffer of `use` tries, in order (empty: none fits).
// Device takes the first device-local type alone (any type where none is).
// Upload the first host-visible, coherent one. Readback and Table first
// the preferred type, then, where its heap is too small or full, the first
// host-visible, coherent one: their preference is a speed hint.
inline std::vector<uint32_t> memoryTypeOrder(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                                             BufferUse use) {
  constexpr VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  VkMemoryPropertyFlags required = host, preferred = 0;
  bool fallBack = true;
  switch (use) {
    case BufferUse::Device:
      required = 0, preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, fallBack = false;
      break;
    case BufferUse::Upload:
      break;
    case BufferUse::Readback:
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      break;
    case BufferUse::Table:
      preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
  }
  std::vector<uint32_t> types;
  for (VkMemoryPropertyFlags want : {required | preferred, required})
    if (auto type = firstMemoryType(memory, typeBits, want);
        type && (types.empty() || (fallBack && types.back() != *type)))
      types.push_back(*type);
  return types;
}

}  // namespace detail
}  // namespace vkdml
