#include "resource_init.hpp"

#include <algorithm>
#include <cstring>

#include "data_types.hpp"

namespace dispatch {

namespace {

// v + delta in the element type, as DxDispatch's `value += valueDelta`:
// floats add in their own precision (FLOAT16 through float, truncated
// back as half.hpp does), integers wrap.
uint64_t add(DML_TENSOR_DATA_TYPE type, uint64_t v, uint64_t delta) {
  switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT16:
      return halfTruncated(halfToFloat(static_cast<uint16_t>(v)) + halfToFloat(static_cast<uint16_t>(delta)));
    case DML_TENSOR_DATA_TYPE_FLOAT32: {
      float a, b;
      uint32_t va = static_cast<uint32_t>(v), vb = static_cast<uint32_t>(delta);
      std::memcpy(&a, &va, 4);
      std::memcpy(&b, &vb, 4);
      a += b;
      std::memcpy(&va, &a, 4);
      return va;
    }
    case DML_TENSOR_DATA_TYPE_FLOAT64: {
      double a, b;
      std::memcpy(&a, &v, 8);
      std::memcpy(&b, &delta, 8);
      a += b;
      std::memcpy(&v, &a, 8);
      return v;
    }
    default: {
      uint32_t size = vkdmlElementSizeInBytes(type);
      uint64_t sum = v + delta;
      return size == 8 ? sum : sum & ((uint64_t(1) << (8 * size)) - 1);
    }
  }
}

// Bytes [from, from + count) of an element's little-endian bits.
void put(uint8_t* out, uint64_t bits, size_t from, size_t count) {
  for (size_t b = 0; b < count; ++b) out[b] = static_cast<uint8_t>(bits >> (8 * (from + b)));
}

}  // namespace

ContentsWriter::ContentsWriter(const Resource& resource)
    : r_(resource), elementSize_(vkdmlElementSizeInBytes(resource.dataType)) {
  if (const auto* sequence = std::get_if<SequenceInit>(&r_.init)) value_ = sequence->start;
}

void ContentsWriter::next(uint8_t* out, size_t bytes) {
  const uint64_t valuesEnd = std::min(offset_ + bytes, r_.initialBytes);
  const size_t n = offset_ < valuesEnd ? static_cast<size_t>(valuesEnd - offset_) : 0;
  if (n) values(out, n);
  std::memset(out + n, 0, bytes - n);  // the buffer past the values
  offset_ += bytes;
}

void ContentsWriter::values(uint8_t* out, size_t n) {
  if (const auto* file = std::get_if<BytesInit>(&r_.init)) {
    std::memcpy(out, file->bytes.data() + offset_, n);
  } else if (const auto* constant = std::get_if<ConstantInit>(&r_.init)) {
    // One element from where the piece starts in it, then copies of what is written, doubling.
    const size_t phase = offset_ % elementSize_, first = std::min(elementSize_, n);
    for (size_t b = 0; b < first; ++b) put(out + b, constant->bits, (phase + b) % elementSize_, 1);
    for (size_t filled = first; filled < n; filled += std::min(filled, n - filled))
      std::memcpy(out + filled, out, std::min(filled, n - filled));
  } else if (const auto* sequence = std::get_if<SequenceInit>(&r_.init)) {
    for (size_t i = 0; i < n;) {
      const size_t phase = (offset_ + i) % elementSize_, take = std::min(elementSize_ - phase, n - i);
      put(out + i, value_, phase, take);
      if (phase + take == elementSize_) value_ = add(r_.dataType, value_, sequence->delta);
      i += take;
    }
  }
}

std::vector<uint8_t> initialContents(const Resource& r) {
  std::vector<uint8_t> out(r.sizeInBytes);
  ContentsWriter(r).next(out.data(), out.size());
  return out;
}

}  // namespace dispatch
