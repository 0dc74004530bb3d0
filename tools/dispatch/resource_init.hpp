// A resource's initial contents: sizeInBytes bytes, zero-filled, with the
// initializer's values at offset 0 (as DxDispatch uploads them).
#pragma once

#include <cstdint>
#include <vector>

#include "model.hpp"

namespace dispatch {

std::vector<uint8_t> initialContents(const Resource& resource);

// The initializer's values alone (initialBytes of them).
std::vector<uint8_t> initialValues(const Resource& resource);

}  // namespace dispatch
