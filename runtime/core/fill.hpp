// Plans dispatches of shaders/fill.comp: words of one slot set to a pattern.
#pragma once

#include "internal.hpp"

namespace vkdml {
namespace detail {

// A dispatch that sets `bytes` (a multiple of 4) of `slot`'s binding from
// `offset` (a multiple of 4) to the 4-byte `pattern`. Internal error for
// 2^32 words or more (no slot holds that many: tensors stay below 2^32
// elements of at most 8 bytes, and scratch is planned below it).
Dispatch planFill(uint32_t slot, uint64_t offset, uint64_t bytes, uint32_t pattern, const DeviceInfo& device);

}  // namespace detail
}  // namespace vkdml
