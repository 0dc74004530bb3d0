// The rules every tensor of a descriptor obeys (OPERATORS.md, "Tensors"),
// and those several operators share.
#pragma once

#include <array>
#include <initializer_list>
#include <optional>
#include <string>

#include "error.hpp"

namespace vkdml {
namespace detail {

constexpr uint32_t kMaxDims = DML_TENSOR_DIMENSION_COUNT_MAX1;
constexpr uint64_t kMaxElements = 0xFFFFFFFFull;  // DirectML: at most 2^32 - 1 elements

enum class TensorRole { Input, Output };

// A validated DML_BUFFER_TENSOR_DESC with its strides made explicit.
struct TensorInfo {
  DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
  uint32_t elementSize = 0;
  uint32_t rank = 0;
  std::array<uint32_t, kMaxDims> sizes{};
  std::array<uint64_t, kMaxDims> strides{};  // in elements
  bool packed = true;                        // no Strides given
  uint64_t elementCount = 0;
  uint64_t footprintElements = 0;  // 1 + sum (size-1)*stride: elements the layout spans
  uint64_t totalBytes = 0;         // TotalTensorSizeInBytes
  uint32_t offsetAlignment = 16;   // a binding's offset must be a multiple of this
  // DML_TENSOR_FLAG_OWNED_BY_DML (inputs only): bound for initialization,
  // read from the persistent resource by executions.
  bool owned = false;

  bool sameLayout(const TensorInfo& o) const;
  std::string shape() const;  // "{2,3,4}"
};

// Reads and checks a tensor descriptor against the rules every tensor obeys
// (OPERATORS.md, "Tensors"). `field` names it in errors ("InputTensors[3]").
// Returns nothing for an absent optional tensor.
std::optional<TensorInfo> readTensor(const char* op, const std::string& field, const DML_TENSOR_DESC* desc,
                                     TensorRole role, bool optional);

// Rules shared by several operators.
void requireRank(const char* op, const std::string& field, const TensorInfo& t, uint32_t minRank, uint32_t maxRank);
void requireSameType(const char* op, const std::string& field, const TensorInfo& t, const std::string& otherField,
                     const TensorInfo& other);
// Sets of data types, a bit (1 << type) each: what a tensor of an operator
// accepts, which both its validation and Device::featureSupport read.
constexpr uint32_t dataTypeMask(std::initializer_list<DML_TENSOR_DATA_TYPE> types) {
  uint32_t mask = 0;
  for (DML_TENSOR_DATA_TYPE type : types) mask |= 1u << type;
  return mask;
}
// Every valid type (readTensor's rule): FLOAT32 (1) to INT64 (11).
constexpr uint32_t kAnyDataType = ((1u << (DML_TENSOR_DATA_TYPE_INT64 + 1)) - 1) & ~1u;
void requireType(const char* op, const std::string& field, const TensorInfo& t, uint32_t allowed);

}  // namespace detail
}  // namespace vkdml
