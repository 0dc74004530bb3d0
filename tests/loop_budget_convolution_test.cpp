// The loop budget (runtime/core/plan.hpp, kLoopBudget) for convolutions:
// lavapipe ends a shader's loops after 65535 passes per batch of
// invocations, silently, so every planner models its kernels' loops and
// shapes its dispatches to stay within the budget on every device. These
// tests plan (without running) convolutions at the extremes DirectML
// allows, for this device and for a device with every convolution path,
// and check each dispatch's model, at chosen extremes and over random
// shapes near the limits; the operators' own tests run the split shapes
// that lavapipe can run quickly. The "convolution plan" cases check where
// K splits across the grid and which path Auto takes.
#include <algorithm>
#include <cstring>
#include <utility>

#include "interface/convolution_integer.h"

#include "planning.hpp"

using namespace test::planning;

namespace {

// The convolution paths each device has, the dot path with each kernel.
struct Target {
  vkdml::DeviceInfo device;
  vkdml::ConvolutionPath path;
  vkdml::DotKernel dot = vkdml::DotKernel::Auto;
};
std::vector<Target> convolutionTargets() {
  using P = vkdml::ConvolutionPath;
  using D = vkdml::DotKernel;
  std::vector<Target> targets;
  for (P path : {P::Portable, P::CooperativeMatrix, P::CooperativeMatrixEmulated})
    targets.push_back({fullDevice(), path});
  const vkdml::DeviceInfo& here = test::device().info();
  for (D dot : {D::Portable, D::Tiled}) {
    targets.push_back({fullDevice(), P::DotProduct, dot});
    if (here.integerDotProduct) targets.push_back({here, P::DotProduct, dot});
  }
  targets.push_back({here, P::Portable});
  if (test::convolutionPathUnsupported().empty()) targets.push_back({here, P::Auto});
  return targets;
}

// Whether a planned convolution's dispatch is a GEMM (not the packing, a
// fill of zeros or a transfer).
bool isGemm(const Dispatch& d) {
  return !(d.isTransfer() || d.kernel == Kernel::fill || d.kernel == Kernel::convolution_integer_pack_i32 ||
           d.kernel == Kernel::convolution_integer_pack_i64 || d.kernel == Kernel::convolution_integer_pack_words_i32 ||
           d.kernel == Kernel::convolution_integer_pack_words_i64);
}
size_t gemmDispatches(const std::vector<Dispatch>& dispatches) {
  return static_cast<size_t>(std::count_if(dispatches.begin(), dispatches.end(), isGemm));
}
vkdml::shader::ConvParams paramsOf(const Dispatch& d) {
  vkdml::shader::ConvParams p{};
  REQUIRE(d.params.size() == sizeof p);
  std::memcpy(&p, d.params.data(), sizeof p);
  return p;
}

// Whether a cooperative-matrix GEMM dispatch splits K across its grid's y
// (shader::K_SPLIT): a choice for speed, where few tiles would leave the
// GPU idle, not a split that the loop budget forces.
bool splitsK(const Dispatch& d) {
  return (paramsOf(d).flags & vkdml::shader::K_SPLIT) != 0;
}

struct Convolution {
  Desc input, filter, output;
  UINT ones[2] = {1, 1}, zeros[2] = {0, 0}, stride[2] = {1, 1};
  DML_CONVOLUTION_INTEGER_OPERATOR_DESC conv{};
  Convolution(std::vector<UINT> in, std::vector<UINT> f, std::vector<UINT> out, UINT groups, UINT strideXY = 1)
      : input(DML_TENSOR_DATA_TYPE_UINT8, std::move(in)),
        filter(DML_TENSOR_DATA_TYPE_INT8, std::move(f)),
        output(DML_TENSOR_DATA_TYPE_INT32, std::move(out)) {
    stride[0] = stride[1] = strideXY;
    const UINT spatial = input.buffer.DimensionCount - 2;
    conv = {&input.tensor, nullptr, &filter.tensor, nullptr, &output.tensor, spatial,
            stride,        ones,    zeros,          zeros,   groups};
  }
  DML_OPERATOR_DESC desc() const { return {DML_OPERATOR_CONVOLUTION_INTEGER, &conv}; }
};

}  // namespace

TEST_CASE("loop_budget: a loop's passes, as lavapipe counts them") {
  // n iterations pass the header n + 1 times; a nested loop's passes count
  // in each iteration of the outer one.
  CHECK(loopPasses(0) == 1);
  CHECK(loopPasses(40000) == 40001);
  CHECK(loopPasses(300, loopPasses(300)) == 300 * 302 + 1);
  CHECK(loopPasses(2, 5) == 13);
  // Saturating: the largest counts never wrap into small ones.
  CHECK(loopPasses(uint64_t(1) << 40, uint64_t(1) << 40) == ~uint64_t(0));
  CHECK(loopPasses(~uint64_t(0), 0) == ~uint64_t(0));
  CHECK(loopPasses(1, ~uint64_t(0)) == ~uint64_t(0));
  CHECK(kLoopBudget < 65535);
}

TEST_CASE("loop_budget: convolutions of ordinary shapes take one GEMM dispatch") {
  // The benchmark's layers (bench/cases.cpp): the budget must not split them.
  struct Shape {
    UINT n, c, oc, hw, k, stride, pad;
  };
  const Shape shapes[] = {{32, 256, 256, 56, 3, 1, 1},
                          {32, 64, 256, 56, 1, 1, 0},
                          {8, 8192, 8192, 32, 1, 1, 0},
                          {1, 64, 64, 28, 3, 1, 1},
                          {1, 64, 256, 28, 1, 1, 0}};
  for (const Shape& s : shapes) {
    CAPTURE(s.c);
    CAPTURE(s.k);
    const UINT out = (s.hw + 2 * s.pad - s.k) / s.stride + 1;
    Convolution conv({s.n, s.c, s.hw, s.hw}, {s.oc, s.c, s.k, s.k}, {s.n, s.oc, out, out}, 1, s.stride);
    conv.zeros[0] = conv.zeros[1] = s.pad;
    for (const auto& [device, path, dot] : convolutionTargets()) {
      const std::vector<Dispatch> dispatches = planWithinBudget(conv.desc(), device, path, dot);
      CHECK(gemmDispatches(dispatches) == 1);
      CHECK((dispatches.back().groups[1] == 1 || splitsK(dispatches.back())));
    }
  }
}

// Where A is packed with each execution and the GEMM has at most 4096 rows
// over few tiles (batch 1's 3x3 64->64 56x56 layer: 25 tiles of 18 K
// steps), K splits across the grid in chunks of 4 steps or more, zeroed by
// the pack (no fill).
TEST_CASE("convolution plan: K split where the pack zeroes the output") {
  const vkdml::DeviceInfo device = fullDevice();
  Convolution packed({1, 64, 56, 56}, {64, 64, 3, 3}, {1, 64, 56, 56}, 1);
  packed.zeros[0] = packed.zeros[1] = 1;
  const std::vector<Dispatch> dispatches = planWithinBudget(packed.desc(), device);
  REQUIRE(dispatches.size() == 2);
  CHECK(dispatches.front().kernel == Kernel::convolution_integer_pack_words_i32);  // channels-last, 56 x 56 planes
  CHECK(splitsK(dispatches.back()));
  CHECK(dispatches.back().groups[0] == 25);
  CHECK(dispatches.back().groups[1] == 4);  // 18 steps in chunks of 5
  // 16 K steps over gathered rows: the rule for wider layers, chunks of 16
  // steps or more, so one dispatch over all of K.
  Convolution gathered({1, 512, 56, 56}, {64, 512, 1, 1}, {1, 64, 56, 56}, 1);
  const std::vector<Dispatch> whole = planWithinBudget(gathered.desc(), device);
  REQUIRE(whole.size() == 1);
  CHECK_FALSE(splitsK(whole.back()));
  CHECK_FALSE(splitsK(whole.back()));
}

// Without cooperative matrices, Auto takes the dot-product kernel where the
// device calls its dot products accelerated, or is a CPU (lavapipe's are
// not accelerated, and still beat the portable kernel there); else the
// portable kernel.
TEST_CASE("convolution plan: Auto's path without cooperative matrices") {
  Convolution conv({1, 64, 28, 28}, {64, 64, 3, 3}, {1, 64, 28, 28}, 1);
  conv.zeros[0] = conv.zeros[1] = 1;
  auto kernel = [&](const vkdml::DeviceInfo& device) {
    return std::string(kernelName(planWithinBudget(conv.desc(), device).back().kernel));
  };
  vkdml::DeviceInfo gpu = fullDevice();
  gpu.cooperativeMatrixNV = gpu.cooperativeMatrixInt8 = false;
  gpu.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  CHECK(kernel(gpu).find("_dot") != std::string::npos);
  gpu.integerDotProduct4x8BitPackedAccelerated = false;
  CHECK(kernel(gpu) == "convolution_integer_xu8_wi8_i32");
  vkdml::DeviceInfo cpu = gpu;
  cpu.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  CHECK(kernel(cpu).find("_dot") != std::string::npos);
  cpu.integerDotProduct = false;
  CHECK(kernel(cpu) == "convolution_integer_xu8_wi8_i32");
}

// The cooperative-matrix kernels' warps are 32-lane subgroups: a device whose
// default is another width (AMD's wave64) runs them where its compute
// pipelines may require 32 lanes (VK_EXT_subgroup_size_control), and not
// otherwise.
TEST_CASE("convolution plan: cooperative matrices on a device of 64-lane subgroups") {
  Convolution conv({1, 64, 28, 28}, {64, 64, 3, 3}, {1, 64, 28, 28}, 1);
  conv.zeros[0] = conv.zeros[1] = 1;
  vkdml::DeviceInfo wave64 = fullDevice();
  wave64.cooperativeMatrixNV = wave64.cooperativeMatrixInt8 = false;
  wave64.cooperativeMatrixKHR = wave64.cooperativeMatrixKHRInt8 = true;
  wave64.cooperativeMatrixKHRInt8Shapes = {{16, 16, 32}};
  wave64.subgroupSize = 64;
  wave64.minSubgroupSize = 32, wave64.maxSubgroupSize = 64;
  const std::vector<Dispatch> dispatches =
      planWithinBudget(conv.desc(), wave64, vkdml::ConvolutionPath::CooperativeMatrixKHR);
  CHECK(std::string(kernelName(dispatches.back().kernel)).find("coopmat_khr") != std::string::npos);
  wave64.minSubgroupSize = 64;
  const vkdml::Operator op = test::device().createOperator(conv.desc());
  vkdml::CompileOptions options;
  options.convolutionPath = vkdml::ConvolutionPath::CooperativeMatrixKHR;
  try {
    vkdml::detail::Access::plan(op).plan(wave64, options, {});
    FAIL("the KHR path was planned for 64-lane subgroups only");
  } catch (const vkdml::Error& e) {
    CHECK(e.code() == vkdml::ErrorCode::Unsupported);
    CHECK(std::string(e.what()).find("32-lane subgroups (it has 64, and can be asked for 64 to 64") !=
          std::string::npos);
  }
}

TEST_CASE("loop_budget: convolutions at the extremes") {
  SUBCASE("K = 2^31 (M = N = 1): chunks of K over dispatches") {
    Convolution conv({1, 1u << 31, 1, 1}, {1, 1u << 31, 1, 1}, {1, 1, 1, 1}, 1);
    for (const auto& [device, path, dot] : convolutionTargets()) {
      const std::vector<Dispatch> dispatches = planWithinBudget(conv.desc(), device, path, dot);
      CHECK(gemmDispatches(dispatches) > 1);
    }
  }
  // Counts of tiles or K steps rounded up in 32 bits wrapped to 0 here: no
  // tile then, the output left as it was; or K unsplit, past the budget.
  SUBCASE("K = 2^32 - 1 (M = N = 1): chunks of K over dispatches") {
    Convolution conv({1, 0xFFFFFFFF, 1, 1}, {1, 0xFFFFFFFF, 1, 1}, {1, 1, 1, 1}, 1);
    for (const auto& [device, path, dot] : convolutionTargets()) {
      const std::vector<Dispatch> dispatches = planWithinBudget(conv.desc(), device, path, dot);
      CHECK(gemmDispatches(dispatches) > 1);
    }
  }
  SUBCASE("M or N = 2^32 - 1: the tiles cover them") {
    // No tile is over 256 rows or columns.
    for (const auto& [rows, columns] : {std::pair<uint64_t, uint64_t>{0xFFFFFFFF, 1}, {1, 0xFFFFFFFF}}) {
      CAPTURE(rows);
      Convolution conv(rows == 1 ? std::vector<UINT>{1, 1, 1, 1} : std::vector<UINT>{1, 1, 65537, 65535},
                       {static_cast<UINT>(columns), 1, 1, 1},
                       rows == 1 ? std::vector<UINT>{1, 0xFFFFFFFF, 1, 1} : std::vector<UINT>{1, 1, 65537, 65535}, 1);
      for (const auto& [device, path, dot] : convolutionTargets())
        for (const Dispatch& d : planWithinBudget(conv.desc(), device, path, dot))
          if (isGemm(d)) {
            const vkdml::shader::ConvParams p = paramsOf(d);
            CHECK(uint64_t(p.mTiles) * 256 >= rows);
            CHECK(uint64_t(p.nTiles) * 256 >= columns);
            CHECK(p.tiles == uint64_t(p.mTiles) * p.nTiles);
          }
    }
  }
  SUBCASE("2^31 tiles of one k (depthwise): rows of workgroups") {
    Convolution conv({1, 1u << 31, 1, 1}, {1u << 31, 1, 1, 1}, {1, 1u << 31, 1, 1}, 1u << 31);
    for (const auto& [device, path, dot] : convolutionTargets()) {
      const std::vector<Dispatch> dispatches = planWithinBudget(conv.desc(), device, path, dot);
      CHECK(dispatches.back().groups[1] > 1);
    }
  }
  SUBCASE("many tiles of a deep K") {
    Convolution conv({1, 1u << 15, 256, 256}, {16, 1u << 15, 1, 1}, {1, 16, 256, 256}, 1);
    for (const auto& [device, path, dot] : convolutionTargets()) planWithinBudget(conv.desc(), device, path, dot);
  }
}

TEST_CASE("loop_budget: random convolutions near the limits, planned") {
  // Every path's planner, for either device, over random geometry: deep or
  // shallow K, few or many tiles, groups, strides, dilations and padding.
  HugeShapes r(20261127);
  int planned = 0;
  for (int round = 0; round < 600; ++round) {
    CAPTURE(round);
    const UINT groups = r.below(3) == 0 ? 1 + r.below(64) : 1;
    const UINT kh = 1 + r.below(r.below(2) ? 3 : 11), kw = 1 + r.below(r.below(2) ? 3 : 11);
    const UINT stride = 1 + r.below(3), dilation = 1 + r.below(2) * r.below(3);
    const UINT pad = r.below(kh);
    // Channels per group and output channels per group, each up to 2^16.
    const UINT cg = 1 + r.below(uint64_t(1) << r.below(17)), ng = 1 + r.below(uint64_t(1) << r.below(17));
    const uint64_t c = uint64_t(cg) * groups, oc = uint64_t(ng) * groups;
    const uint64_t filterElements = oc * cg * kh * kw;
    if (c > 0xFFFFFFFFull || oc > 0xFFFFFFFFull || filterElements > 0xFFFFFFFFull) continue;
    // The spatial extent and batch take what the input's and output's 2^32 - 1 elements leave.
    const uint64_t room = 0xFFFFFFFFull / std::max(c, oc);
    const UINT h = std::max<UINT>(kh * dilation, 1 + r.below(std::min<uint64_t>(room, 1u << r.below(16))));
    const UINT w = std::max<UINT>(kw * dilation, 1 + r.below(std::min<uint64_t>(room / h + 1, 1u << r.below(16))));
    const UINT n = 1 + r.below(std::max<uint64_t>(1, std::min<uint64_t>(room / (uint64_t(h) * w), 64)));
    const UINT oh = (h + 2 * pad - dilation * (kh - 1) - 1) / stride + 1;
    const UINT ow = (w + 2 * pad - dilation * (kw - 1) - 1) / stride + 1;
    Convolution conv({n, static_cast<UINT>(c), h, w}, {static_cast<UINT>(oc), cg, kh, kw},
                     {n, static_cast<UINT>(oc), oh, ow}, groups, stride);
    conv.ones[0] = conv.ones[1] = dilation;
    conv.zeros[0] = conv.zeros[1] = pad;
    try {
      test::device().createOperator(conv.desc());
    } catch (const vkdml::Error&) {
      continue;
    }
    ++planned;
    for (const auto& [device, path, dot] : convolutionTargets()) planWithinBudget(conv.desc(), device, path, dot);
  }
  CHECK(planned >= 300);
  MESSAGE("planned " << planned << " of 600 random convolutions");
}
