// What the DML_CONVOLUTION_INTEGER tests share: element types, a
// descriptor builder, the cases' machinery (convolution_integer_cases.cpp)
// and the reference.
#pragma once

#include <random>
#include <string>
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

// PerTensorSymmetric: one per tensor at the middle of its type (INT8 0,
// UINT8 128), which the cooperative-matrix kernel's flip to INT8 makes 0.
enum class ZeroPoint { None, PerTensor, PerChannel, PerTensorSymmetric };

// One randomized case: shapes, types, zero points and layouts.
struct Case {
  std::vector<uint32_t> input, filter;  // sizes; rank 3 or 4
  std::vector<uint32_t> strides, dilations, startPadding, endPadding;
  uint32_t groups = 1;
  DML_TENSOR_DATA_TYPE inputType = U8, filterType = U8;
  ZeroPoint inputZeroPoint = ZeroPoint::None, filterZeroPoint = ZeroPoint::None;
  bool strided = false;
  // Where given, the input's, filter's and output's (else as `strided` says).
  std::vector<uint32_t> inputStrides, filterStrides, outputStrides;
  // DML_TENSOR_FLAG_OWNED_BY_DML on FilterTensor (1), and on the zero points too (2).
  int owned = 0;
  // The zero points' DimensionCount, 1 to 4 ({ [1], OC, [1], [1] } per
  // channel); 0: the input's.
  uint32_t zeroPointRank = 0;
};

std::string describe(const Case& c);
// Runs a case with random data (through test::run's options) against the reference.
void runCase(const Case& c, std::mt19937_64& rng);
// A 2-D case with square parameters.
Case case2d(std::vector<uint32_t> input, std::vector<uint32_t> filter, uint32_t stride, uint32_t dilation,
            uint32_t pad0, uint32_t pad1, uint32_t groups);
// Cycles the four signedness combinations, the zero-point modes and their
// DimensionCounts (1 to 3, or the input's) over a list of shapes so that
// each shape meets several of them.
void runVariants(std::vector<Case> cases, std::mt19937_64& rng, bool strided = false);
// A random case: 1 or 2 spatial dimensions, up to 3 groups of up to 9
// channels and 20 outputs each, kernels 1 to 7 wide, strides, dilations and
// pads up to 3, any types, zero points and layouts.
Case randomCase(std::mt19937_64& rng);

// The reference convolution (convolution_integer_reference.cpp).
Tensor reference(const Conv& conv, const Tensor& input, const Tensor* inputZeroPoint, const Tensor& filter,
                 const Tensor* filterZeroPoint, const std::vector<uint32_t>& outSizes);

}  // namespace conv
}  // namespace test
