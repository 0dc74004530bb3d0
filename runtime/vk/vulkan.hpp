// runtime/vk: the only layer that calls Vulkan (through volk).
#pragma once

#include <volk.h>

#include "core/internal.hpp"

namespace vkdml {
namespace detail {

[[noreturn]] void throwVulkan(VkResult result, const char* call);
inline void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throwVulkan(result, call);
}

}  // namespace detail
}  // namespace vkdml
