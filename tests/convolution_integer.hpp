// What the DML_CONVOLUTION_INTEGER tests share: element types, a
// descriptor builder and the reference.
#pragma once

#include <vector>

#include "support.hpp"

namespace test {
namespace conv {

constexpr auto U8 = DML_TENSOR_DATA_TYPE_UINT8;
constexpr auto I8 = DML_TENSOR_DATA_TYPE_INT8;
constexpr auto I32 = DML_TENSOR_DATA_TYPE_INT32;

// The descriptor's parameters and its (optional) zero-point tensors.
struct Conv {
  std::vector<uint32_t> strides, dilations, startPadding, endPadding;
  uint32_t groups = 1;
  DML_CONVOLUTION_INTEGER_OPERATOR_DESC desc{};
  DML_OPERATOR_DESC op{};

  uint32_t spatial() const { return static_cast<uint32_t>(strides.size()); }
  const DML_OPERATOR_DESC& make(Tensor& input, Tensor* inputZeroPoint, Tensor& filter, Tensor* filterZeroPoint,
                                Tensor& output) {
    desc = {input.desc(),
            inputZeroPoint ? inputZeroPoint->desc() : nullptr,
            filter.desc(),
            filterZeroPoint ? filterZeroPoint->desc() : nullptr,
            output.desc(),
            spatial(),
            strides.data(),
            dilations.data(),
            startPadding.data(),
            endPadding.data(),
            groups};
    op = {DML_OPERATOR_CONVOLUTION_INTEGER, &desc};
    return op;
  }
  // The output's spatial sizes: (size + pads - ((k-1)*d + 1)) / s + 1.
  std::vector<uint32_t> outputSizes(const std::vector<uint32_t>& in, const std::vector<uint32_t>& filter) const {
    std::vector<uint32_t> out = {in[0], filter[0]};
    for (uint32_t i = 0; i < spatial(); ++i) {
      uint32_t extent = (filter[2 + i] - 1) * dilations[i] + 1;
      out.push_back((in[2 + i] + startPadding[i] + endPadding[i] - extent) / strides[i] + 1);
    }
    return out;
  }
};

// The reference convolution (convolution_integer_reference.cpp).
Tensor reference(const Conv& conv, const Tensor& input, const Tensor* inputZeroPoint, const Tensor& filter,
                 const Tensor* filterZeroPoint, const std::vector<uint32_t>& outSizes);

}  // namespace conv
}  // namespace test
