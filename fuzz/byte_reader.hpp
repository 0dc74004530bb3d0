// Decisions drawn from the fuzzer's input bytes. Every call consumes a fixed
// number of bytes, so that a mutation of one byte changes one decision; once
// the input is used up every read is zero. Decoders map zero to the plain,
// valid choice (fuzz/decode.cpp), so a short input still decodes into a
// descriptor that vkdml accepts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  // Little-endian (each read sequenced: operands of | are not).
  uint16_t u16() {
    const uint16_t low = byte();
    return static_cast<uint16_t>(low | byte() << 8);
  }
  uint32_t u32() {
    const uint32_t low = u16();
    return low | static_cast<uint32_t>(u16()) << 16;
  }
  uint64_t u64() {
    const uint64_t low = u32();
    return low | static_cast<uint64_t>(u32()) << 32;
  }

  // One byte mapped onto [lo, hi] (hi - lo < 256 keeps the map uniform);
  // zero gives lo.
  uint32_t range(uint32_t lo, uint32_t hi) { return lo + byte() % (hi - lo + 1); }
  // One byte: true with probability about n/256; a zero byte gives false.
  bool rarely(uint32_t n) { return byte() >= 256 - n; }
  // One of `values` (the first for a zero byte).
  template <typename T>
  T pick(std::initializer_list<T> values) {
    return values.begin()[byte() % values.size()];
  }

  size_t consumed() const { return at_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

}  // namespace fuzz
