// A resource's initial contents: sizeInBytes bytes, zero-filled, with the
// initializer's values at offset 0 (as DxDispatch uploads them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model.hpp"

namespace dispatch {

// The contents a piece at a time, in order: a buffer is filled through a
// piece of host memory, not a copy of its whole size.
class ContentsWriter {
 public:
  explicit ContentsWriter(const Resource& resource);
  // The next `bytes` bytes (no more than sizeInBytes in all).
  void next(uint8_t* out, size_t bytes);

 private:
  void values(uint8_t* out, size_t n);  // n bytes of the initializer's values from offset_

  const Resource& r_;
  size_t elementSize_;
  uint64_t offset_ = 0;  // bytes written so far
  uint64_t value_ = 0;   // a sequence's element at offset_
};

// All of them, in one allocation of sizeInBytes.
std::vector<uint8_t> initialContents(const Resource& resource);

}  // namespace dispatch
