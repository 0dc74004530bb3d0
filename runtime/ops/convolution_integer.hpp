// DML_CONVOLUTION_INTEGER's plan: the descriptor's rules
// (convolution_integer.cpp) fill it, its planner (convolution_integer_plan.cpp,
// with its tiles and splits in convolution_integer_tiles.cpp and its paths
// in convolution_integer_paths.cpp) turns it into dispatches.
#pragma once

#include <optional>

#include "core/internal.hpp"

namespace vkdml {
namespace detail {

constexpr const char* kConvolutionIntegerOp = "DML_CONVOLUTION_INTEGER";

// The dimension of a per-channel FilterZeroPointTensor that counts the
// output channels: { [1], OC, [1], [1] }, the second of 2 to 4, the only
// one of 1.
constexpr uint32_t zeroPointChannelDimension(uint32_t rank) {
  return rank == 1 ? 0 : 1;
}

struct ConvolutionIntegerPlan : OperatorPlan {
  TensorInfo input, filter, output;
  std::optional<TensorInfo> inputZeroPoint, filterZeroPoint;
  uint32_t spatialDims = 2;
  uint32_t strides[2] = {1, 1}, dilations[2] = {1, 1}, startPadding[2] = {0, 0};
  uint32_t groups = 1;
  bool index64 = false;

  std::vector<Dispatch> plan(const DeviceInfo& device, const CompileOptions& options,
                             const PlanDefaults& defaults) const override;
};

}  // namespace detail
}  // namespace vkdml
