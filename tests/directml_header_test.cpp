// What DirectML code expects of DirectML.h beyond the descriptors: the flag
// operators, the constants' type, no helper of its own, and C with the
// includer's own Windows types (directml_header.c).
#include <vkdml/DirectML.h>

#include <doctest/doctest.h>

#include <algorithm>

extern "C" UINT64 vkdmlHeaderFromC(void);

// DirectML programs define this helper themselves (DirectML.h has none):
// with vkdml's header it must still compile.
inline UINT64 DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount, const UINT* sizes,
                                      const UINT* strides) {
  return vkdmlCalcBufferTensorSize(dataType, dimensionCount, sizes, strides);
}

// winnt.h's flag operators that return a value are constexpr.
constexpr DML_TENSOR_FLAGS kBoth = DML_TENSOR_FLAG_NONE | DML_TENSOR_FLAG_OWNED_BY_DML;
static_assert(kBoth == DML_TENSOR_FLAG_OWNED_BY_DML, "operator|");
static_assert((kBoth & ~DML_TENSOR_FLAG_OWNED_BY_DML) == DML_TENSOR_FLAG_NONE, "operators & and ~");
static_assert((kBoth ^ DML_TENSOR_FLAG_OWNED_BY_DML) == DML_TENSOR_FLAG_NONE, "operator^");

TEST_CASE("header: DirectML.h's flag operators, UINT constants and C, beside a program's own helper") {
  DML_TENSOR_FLAGS flags = DML_TENSOR_FLAG_NONE;
  flags |= DML_TENSOR_FLAG_OWNED_BY_DML;
  CHECK(flags == DML_TENSOR_FLAG_OWNED_BY_DML);
  flags &= ~DML_TENSOR_FLAG_OWNED_BY_DML;
  CHECK(flags == DML_TENSOR_FLAG_NONE);
  flags ^= DML_TENSOR_FLAG_OWNED_BY_DML;
  CHECK(flags == DML_TENSOR_FLAG_OWNED_BY_DML);

  // The constants are UINTs, so they meet a UINT in std::max and std::min.
  const UINT alignment = 4, rank = 6;
  CHECK(std::max(alignment, DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) == 16u);
  CHECK(std::min(rank, DML_TENSOR_DIMENSION_COUNT_MAX) == 5u);
  CHECK(std::min(rank, DML_TENSOR_DIMENSION_COUNT_MAX1) == 6u);
  CHECK(std::max(alignment, DML_TEMPORARY_BUFFER_ALIGNMENT) == 256u);
  CHECK(std::max(alignment, DML_PERSISTENT_BUFFER_ALIGNMENT) == 256u);

  // (2 * 8 + 4 + 1) elements of 2 bytes, rounded up to 4, and 8 dimensions.
  CHECK(vkdmlHeaderFromC() == 44u + 8u);
  const UINT sizes[2] = {3, 5}, strides[2] = {8, 1};
  CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT16, 2, sizes, strides) == 44u);
}
