// The harness's own reading of a tensor descriptor, in arithmetic that cannot
// wrap: what the fuzzer checks vkdml's validation against, and how it walks
// a tensor's elements in the buffers.
#pragma once

#include <vkdml/DirectML.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace fuzz {

using u128 = unsigned __int128;

// vkdmlCalcBufferTensorSize without wrapping: the bytes that Sizes (and
// Strides, if given) imply, rounded up to 4, saturated to 2^64 - 1.
uint64_t requiredBytes(uint32_t dataType, const uint32_t* sizes, uint32_t rank, const uint32_t* strides);

struct Layout {
  uint32_t dataType = 0;
  uint32_t elementSize = 0;
  uint32_t rank = 0;
  std::array<uint32_t, DML_TENSOR_DIMENSION_COUNT_MAX1> sizes{};
  std::array<uint64_t, DML_TENSOR_DIMENSION_COUNT_MAX1> strides{};  // given, or packed
  u128 elementCount = 0;
  u128 footprintBytes = 0;  // (1 + sum (size-1)*stride) * elementSize: the bytes its elements span
  uint64_t totalBytes = 0;  // TotalTensorSizeInBytes
  uint32_t alignment = 0;   // GuaranteedBaseOffsetAlignment, 0 read as 16
  uint32_t flags = 0;       // the raw bits

  bool sameLayout(const Layout& o) const;  // DataType, Sizes and strides
  // Calls f(byte offset of the element) for each element in row-major order.
  template <typename F>
  void forEachElement(F&& f) const {
    std::array<uint32_t, DML_TENSOR_DIMENSION_COUNT_MAX1> c{};
    for (u128 n = 0; n < elementCount; ++n) {
      uint64_t at = 0;
      for (uint32_t d = 0; d < rank; ++d) at += c[d] * strides[d];
      f(at * elementSize);
      for (uint32_t d = rank; d-- > 0;) {
        if (++c[d] < sizes[d]) break;
        c[d] = 0;
      }
    }
  }
};

// The layout a descriptor describes, when its fields are sane enough to
// read (a known data type, 1..8 dimensions, Sizes present): a descriptor
// that vkdml accepted always is.
std::optional<Layout> readLayout(const DML_TENSOR_DESC* desc);

// `v` in decimal (for the findings' messages).
std::string decimal(u128 v);

}  // namespace fuzz
