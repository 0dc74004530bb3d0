#include "layout.hpp"

#include <cstring>

namespace fuzz {

namespace {
uint32_t raw32(const void* field) {
  uint32_t bits;
  std::memcpy(&bits, field, sizeof bits);
  return bits;
}

uint32_t elementSizeOf(uint32_t dataType) {
  return dataType <= DML_TENSOR_DATA_TYPE_INT64 ? vkdmlElementSizeInBytes(static_cast<DML_TENSOR_DATA_TYPE>(dataType))
                                                : 0;
}

// Products of up to 8 sizes (or strides) of 32 bits stay below 2^128 once
// saturated at 2^100.
constexpr u128 kSaturated = u128(1) << 100;
u128 saturatingMul(u128 a, u128 b) {
  return a == 0 || b <= kSaturated / a ? a * b : kSaturated;
}
}  // namespace

uint64_t requiredBytes(uint32_t dataType, const uint32_t* sizes, uint32_t rank, const uint32_t* strides) {
  u128 elements = 1;
  for (uint32_t i = 0; i < rank; ++i)
    elements =
        strides ? elements + saturatingMul(sizes[i] ? sizes[i] - 1 : 0, strides[i]) : saturatingMul(elements, sizes[i]);
  const u128 bytes = (saturatingMul(elements, elementSizeOf(dataType)) + 3) / 4 * 4;
  return bytes > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

bool Layout::sameLayout(const Layout& o) const {
  if (dataType != o.dataType || rank != o.rank) return false;
  for (uint32_t d = 0; d < rank; ++d)
    if (sizes[d] != o.sizes[d] || (sizes[d] > 1 && strides[d] != o.strides[d])) return false;
  return true;
}

std::optional<Layout> readLayout(const DML_TENSOR_DESC* desc) {
  if (!desc || raw32(&desc->Type) != DML_TENSOR_TYPE_BUFFER || !desc->Desc) return std::nullopt;
  const auto* b = static_cast<const DML_BUFFER_TENSOR_DESC*>(desc->Desc);
  Layout t;
  t.dataType = raw32(&b->DataType);
  t.elementSize = elementSizeOf(t.dataType);
  t.rank = b->DimensionCount;
  if (t.elementSize == 0 || t.rank < 1 || t.rank > DML_TENSOR_DIMENSION_COUNT_MAX1 || !b->Sizes) return std::nullopt;
  u128 stride = 1, span = 0;
  t.elementCount = 1;
  for (uint32_t d = t.rank; d-- > 0;) {
    t.sizes[d] = b->Sizes[d];
    t.strides[d] = b->Strides ? b->Strides[d] : static_cast<uint64_t>(stride);  // packed: exact below 2^64
    stride = saturatingMul(stride, t.sizes[d]);
    t.elementCount = saturatingMul(t.elementCount, t.sizes[d]);
    span += saturatingMul(t.sizes[d] ? t.sizes[d] - 1 : 0, t.strides[d]);
  }
  t.footprintBytes = t.elementCount == 0 ? 0 : saturatingMul(span + 1, t.elementSize);
  t.totalBytes = b->TotalTensorSizeInBytes;
  t.flags = raw32(&b->Flags);
  t.alignment =
      b->GuaranteedBaseOffsetAlignment ? b->GuaranteedBaseOffsetAlignment : DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
  return t;
}

std::string decimal(u128 v) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v);
  return s;
}

}  // namespace fuzz
