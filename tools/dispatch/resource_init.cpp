#include "resource_init.hpp"

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
      uint32_t size = DMLElementSizeInBytes(type);
      uint64_t sum = v + delta;
      return size == 8 ? sum : sum & ((uint64_t(1) << (8 * size)) - 1);
    }
  }
}

void append(std::vector<uint8_t>& out, uint64_t bits, uint32_t size) {
  for (uint32_t b = 0; b < size; ++b) out.push_back(static_cast<uint8_t>(bits >> (8 * b)));
}

}  // namespace

std::vector<uint8_t> initialValues(const Resource& r) {
  const uint32_t size = DMLElementSizeInBytes(r.dataType);
  std::vector<uint8_t> out;
  if (const auto* bytes = std::get_if<BytesInit>(&r.init)) return bytes->bytes;
  out.reserve(r.initialBytes);
  if (const auto* constant = std::get_if<ConstantInit>(&r.init)) {
    for (uint32_t i = 0; i < constant->count; ++i) append(out, constant->bits, size);
  } else if (const auto* sequence = std::get_if<SequenceInit>(&r.init)) {
    uint64_t v = sequence->start;
    for (uint32_t i = 0; i < sequence->count; ++i) {
      append(out, v, size);
      v = add(r.dataType, v, sequence->delta);
    }
  }
  return out;
}

std::vector<uint8_t> initialContents(const Resource& r) {
  std::vector<uint8_t> out = initialValues(r);
  out.resize(r.sizeInBytes, 0);
  return out;
}

}  // namespace dispatch
