// What the planning tests share (loop_budget_convolution_test.cpp,
// loop_budget_data_movement_test.cpp, copy_plan_test.cpp, the convolution
// plan tests): descriptors of any size, a plain 2-D convolution, a device
// with every convolution path, a plan's GEMM, planning within the loop budget
// (runtime/core/plan.hpp, kLoopBudget), and random shapes near DirectML's
// limits.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "../runtime/core/internal.hpp"

#include "support.hpp"

namespace test {
namespace planning {

using vkdml::detail::Dispatch;
using vkdml::detail::Kernel;
using vkdml::detail::kernelName;
using vkdml::detail::kLoopBudget;
using vkdml::detail::loopPasses;

// A descriptor of any size: only validated and planned, never allocated.
struct Desc {
  std::vector<UINT> sizes, strides;
  DML_BUFFER_TENSOR_DESC buffer{};
  DML_TENSOR_DESC tensor{};
  Desc(DML_TENSOR_DATA_TYPE type, std::vector<UINT> s, std::vector<UINT> st = {})
      : sizes(std::move(s)), strides(std::move(st)) {
    buffer.DataType = type;
    buffer.DimensionCount = static_cast<UINT>(sizes.size());
    buffer.Sizes = sizes.data();
    buffer.Strides = strides.empty() ? nullptr : strides.data();
    buffer.TotalTensorSizeInBytes =
        vkdmlCalcBufferTensorSize(type, buffer.DimensionCount, sizes.data(), buffer.Strides);
    tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
};

// A 2-D UINT8 x INT8 convolution of N images, one group, square kernel,
// "same" padding, stride 1.
struct SameConv {
  Desc input, filter, output;
  UINT ones[2] = {1, 1}, pads[2] = {0, 0};
  DML_CONVOLUTION_INTEGER_OPERATOR_DESC conv{};
  SameConv(UINT n, UINT c, UINT oc, UINT h, UINT w, UINT k)
      : input(DML_TENSOR_DATA_TYPE_UINT8, {n, c, h, w}),
        filter(DML_TENSOR_DATA_TYPE_INT8, {oc, c, k, k}),
        output(DML_TENSOR_DATA_TYPE_INT32, {n, oc, h, w}) {
    pads[0] = pads[1] = k / 2;
    conv = {&input.tensor, nullptr, &filter.tensor, nullptr, &output.tensor, 2, ones, ones, pads, pads, 1};
  }
  DML_OPERATOR_DESC desc() const { return {DML_OPERATOR_CONVOLUTION_INTEGER, &conv}; }
};

// One image, C -> OC over H x W, a K x K kernel at `stride`, padded by `pad`,
// in `groups` groups.
struct PaddedConv {
  Desc input, filter, output;
  UINT strides[2], pads[2], ones[2] = {1, 1};
  DML_CONVOLUTION_INTEGER_OPERATOR_DESC conv{};
  PaddedConv(UINT c, UINT oc, UINT hw, UINT k, UINT stride, UINT pad, UINT groups = 1)
      : input(DML_TENSOR_DATA_TYPE_UINT8, {1, c, hw, hw}),
        filter(DML_TENSOR_DATA_TYPE_INT8, {oc, c / groups, k, k}),
        output(DML_TENSOR_DATA_TYPE_INT32, {1, oc, (hw + 2 * pad - k) / stride + 1, (hw + 2 * pad - k) / stride + 1}),
        strides{stride, stride},
        pads{pad, pad} {
    conv = {&input.tensor, nullptr, &filter.tensor, nullptr, &output.tensor, 2, strides, ones, pads, pads, groups};
  }
  DML_OPERATOR_DESC desc() const { return {DML_OPERATOR_CONVOLUTION_INTEGER, &conv}; }
};

// A device with every convolution path (an NVIDIA H200's figures), with
// multiprocessors left at 0: the plans of a device that does not count them
// ("the wide K split by waves of multiprocessors" sets them).
inline vkdml::DeviceInfo fullDevice() {
  vkdml::DeviceInfo info;
  info.name = "H200-like";
  info.subgroupSize = info.minSubgroupSize = info.maxSubgroupSize = 32;
  info.subgroupShuffleRelative = true;
  info.maxComputeSharedMemorySize = 49152;
  info.maxComputeWorkGroupCountX = 0x7FFFFFFF;
  info.maxComputeWorkGroupSizeX = 1024;
  info.maxStorageBufferRange = 0xFFFFFFFF;
  info.maxMemoryAllocationSize = uint64_t(1) << 40;
  info.integerDotProduct = info.integerDotProduct4x8BitPackedAccelerated = true;
  info.cooperativeMatrixNV = info.cooperativeMatrixInt8 = true;
  return info;
}

// Plans `desc` for `device` and checks every dispatch's modeled loop passes.
inline std::vector<Dispatch> planWithinBudget(const DML_OPERATOR_DESC& desc, const vkdml::DeviceInfo& device,
                                              vkdml::ConvolutionPath path = vkdml::ConvolutionPath::Auto,
                                              vkdml::DotKernel dotKernel = vkdml::DotKernel::Auto) {
  const std::string pathName = vkdml::toString(path);
  INFO("device " << device.name << ", path " << pathName << ", dot kernel " << static_cast<int>(dotKernel));
  const vkdml::Operator op = test::device().createOperator(desc);
  vkdml::CompileOptions options;
  options.convolutionPath = path;
  options.dotKernel = dotKernel;
  const std::vector<Dispatch> dispatches = vkdml::detail::Access::plan(op).plan(device, options, {});
  REQUIRE_FALSE(dispatches.empty());
  // The first dispatch of each kernel over the budget or outside Vulkan's least grid, if any.
  std::vector<std::string> wrong;
  for (const Dispatch& d : dispatches) {
    const bool inGrid = d.groups[0] >= 1 && d.groups[1] >= 1 && d.groups[0] <= 65535 && d.groups[1] <= 65535;
    const std::string name = kernelName(d.kernel);
    if ((d.loopPasses > kLoopBudget || !inGrid) && (wrong.empty() || wrong.back().rfind(name, 0) != 0))
      wrong.push_back(name + ": " + std::to_string(d.loopPasses) + " loop passes, groups " +
                      std::to_string(d.groups[0]) + "x" + std::to_string(d.groups[1]));
  }
  CHECK_MESSAGE(wrong.empty(), (wrong.empty() ? "" : wrong.front()));
  return dispatches;
}

// Random shapes near DirectML's limits, for planning only: up to 2^32 - 1
// elements over 1-8 dimensions (each of `rank` draws multiplies a random
// dimension by up to 2^20), and strides that
// merge some dimensions and not others (a stride is the inner extent, or
// padded where that fits, or doubled, or 0 where `broadcast`). Empty where
// a stride would pass 2^32.
struct HugeShapes {
  std::mt19937_64 rng;
  explicit HugeShapes(uint64_t seed) : rng(seed) {}
  uint32_t below(uint64_t n) { return static_cast<uint32_t>(rng() % n); }
  std::vector<UINT> sizes(uint32_t rank, uint64_t maxElements) {
    std::vector<UINT> s(rank, 1);
    uint64_t product = 1;
    for (uint32_t i = 0; i < rank; ++i) {
      const uint32_t d = below(rank);               // dimensions in random order: the first drawn get the most
      const uint64_t room = maxElements / product;  // the factor that keeps the product within
      const uint64_t wanted = uint64_t(1) << below(21);
      const uint64_t factor = 1 + below(std::min(room, wanted));
      product *= factor;
      s[d] = static_cast<UINT>(s[d] * factor);
    }
    return s;
  }
  std::vector<UINT> strides(const std::vector<UINT>& sizes, bool broadcast) {
    std::vector<UINT> st(sizes.size());
    uint64_t extent = 1 + below(3) * below(2);  // the innermost stride: mostly 1, now and then 2 or 3
    for (size_t d = sizes.size(); d-- > 0;) {
      uint64_t stride = extent;
      switch (below(broadcast ? 5 : 4)) {
        case 0:
        case 1:
          break;  // merges with the next inner dimension
        case 2:
          stride = extent + 1 + below(7);
          break;
        case 3:
          stride = extent * 2 + 1;
          break;
        default:
          stride = 0;
          break;
      }
      if (stride > 0xFFFFFFFFull) stride = extent;  // padding would not fit: merge instead
      if (stride > 0xFFFFFFFFull) return {};
      st[d] = static_cast<UINT>(stride);
      extent = std::max<uint64_t>(extent, stride * sizes[d]);
    }
    return st;
  }
};

// The cooperative-matrix plan tests' view of a plan.
// The GEMM's kernel (the last dispatch) and its workgroups along x.
struct Gemm {
  std::string kernel;
  uint32_t workgroups = 0;
};
// The dispatches of `c`'s plan on `device` through `path` and `packing`.
template <typename Conv>
std::vector<Dispatch> planOn(const Conv& c, const vkdml::DeviceInfo& device,
                             vkdml::ConvolutionPacking packing = vkdml::ConvolutionPacking::Auto,
                             vkdml::ConvolutionPath path = vkdml::ConvolutionPath::CooperativeMatrix,
                             const vkdml::detail::PlanDefaults& defaults = {}) {
  const vkdml::Operator op = test::device().createOperator(c.desc());
  vkdml::CompileOptions options;
  options.convolutionPath = path;
  options.convolutionPacking = packing;
  std::vector<Dispatch> dispatches = vkdml::detail::Access::plan(op).plan(device, options, defaults);
  REQUIRE_FALSE(dispatches.empty());
  return dispatches;
}
inline Gemm planGemm(const SameConv& c, const vkdml::DeviceInfo& device, vkdml::ConvolutionPacking packing) {
  const std::vector<Dispatch> dispatches = planOn(c, device, packing);
  return {kernelName(dispatches.back().kernel), dispatches.back().groups[0]};
}
// The same on `device` with `multiprocessors`.
inline vkdml::DeviceInfo withMultiprocessors(vkdml::DeviceInfo device, uint32_t multiprocessors) {
  device.multiprocessors = multiprocessors;
  return device;
}

}  // namespace planning
}  // namespace test
