// The loop budget (runtime/core/plan.hpp, kLoopBudget): lavapipe ends a
// shader's loops after 65535 passes per batch of invocations, silently, so
// every planner models its kernels' loops and shapes its dispatches to stay
// within the budget on every device. These tests plan (without running)
// operators at the extremes DirectML allows, for this device and for a
// device with every convolution path, and check each dispatch's model, at
// chosen extremes and over thousands of random shapes near the limits; the
// operators' own tests run the split shapes that lavapipe can run quickly.
// The "copy plan" cases check which data movement a CPU device (lavapipe)
// does with transfer commands instead of the copy kernel, region by region.
#include <algorithm>
#include <array>
#include <cstring>
#include <random>

#include "../runtime/core/internal.hpp"
#include "interface/convolution_integer.h"

#include "support.hpp"

namespace {

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
    buffer.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, buffer.DimensionCount, sizes.data(), buffer.Strides);
    tensor = {DML_TENSOR_TYPE_BUFFER, &buffer};
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
};

// A device with every convolution path (an NVIDIA H200's figures).
vkdml::DeviceInfo fullDevice() {
  vkdml::DeviceInfo info;
  info.name = "H200-like";
  info.subgroupSize = 32;
  info.subgroupShuffleRelative = true;
  info.maxComputeSharedMemorySize = 49152;
  info.maxComputeWorkGroupCountX = 0x7FFFFFFF;
  info.maxStorageBufferRange = 0xFFFFFFFF;
  info.maxMemoryAllocationSize = uint64_t(1) << 40;
  info.integerDotProduct = info.integerDotProduct4x8BitPackedAccelerated = true;
  info.cooperativeMatrixNV = info.cooperativeMatrixInt8 = true;
  return info;
}

// Plans `desc` for `device` and checks every dispatch's modeled loop passes.
std::vector<Dispatch> planWithinBudget(const DML_OPERATOR_DESC& desc, const vkdml::DeviceInfo& device,
                                       vkdml::ConvolutionPath path = vkdml::ConvolutionPath::Auto) {
  const std::string pathName = vkdml::toString(path);
  INFO("device " << device.name << ", path " << pathName);
  const vkdml::Operator op = test::device().createOperator(desc);
  vkdml::CompileOptions options;
  options.convolutionPath = path;
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

// The convolution paths each device has.
std::vector<std::pair<vkdml::DeviceInfo, vkdml::ConvolutionPath>> convolutionTargets() {
  using P = vkdml::ConvolutionPath;
  std::vector<std::pair<vkdml::DeviceInfo, P>> targets;
  for (P path : {P::Portable, P::DotProduct, P::CooperativeMatrix, P::CooperativeMatrixEmulated})
    targets.emplace_back(fullDevice(), path);
  const vkdml::DeviceInfo& here = test::device().info();
  targets.emplace_back(here, P::Portable);
  if (here.integerDotProduct) targets.emplace_back(here, P::DotProduct);
  if (test::convolutionPathUnsupported().empty()) targets.emplace_back(here, P::Auto);
  return targets;
}

// The GEMM dispatches of a planned convolution (after the packing and a
// fill of zeros, if any).
size_t gemmDispatches(const std::vector<Dispatch>& dispatches) {
  size_t n = 0;
  for (const Dispatch& d : dispatches)
    n += d.isTransfer() || d.kernel == Kernel::fill || d.kernel == Kernel::convolution_integer_pack_i32 ||
                 d.kernel == Kernel::convolution_integer_pack_i64
             ? 0
             : 1;
  return n;
}

// Whether a cooperative-matrix GEMM dispatch splits K across its grid's y
// (shader::K_SPLIT): a choice for speed, where few tiles would leave the
// GPU idle, not a split that the loop budget forces.
bool splitsK(const Dispatch& d) {
  vkdml::shader::ConvParams p{};
  REQUIRE(d.params.size() == sizeof p);
  std::memcpy(&p, d.params.data(), sizeof p);
  return (p.flags & vkdml::shader::K_SPLIT) != 0;
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
    for (const auto& [device, path] : convolutionTargets()) {
      const std::vector<Dispatch> dispatches = planWithinBudget(conv.desc(), device, path);
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
  CHECK(dispatches.front().kernel == Kernel::convolution_integer_pack_i32);
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

TEST_CASE("loop_budget: convolutions at the extremes") {
  SUBCASE("K = 2^31 (M = N = 1): chunks of K over dispatches") {
    Convolution conv({1, 1u << 31, 1, 1}, {1, 1u << 31, 1, 1}, {1, 1, 1, 1}, 1);
    for (const auto& [device, path] : convolutionTargets()) {
      const std::vector<Dispatch> dispatches = planWithinBudget(conv.desc(), device, path);
      CHECK(gemmDispatches(dispatches) > 1);
    }
  }
  SUBCASE("2^31 tiles of one k (depthwise): rows of workgroups") {
    Convolution conv({1, 1u << 31, 1, 1}, {1u << 31, 1, 1, 1}, {1, 1u << 31, 1, 1}, 1u << 31);
    for (const auto& [device, path] : convolutionTargets()) {
      const std::vector<Dispatch> dispatches = planWithinBudget(conv.desc(), device, path);
      CHECK(dispatches.back().groups[1] > 1);
    }
  }
  SUBCASE("many tiles of a deep K") {
    Convolution conv({1, 1u << 15, 256, 256}, {16, 1u << 15, 1, 1}, {1, 16, 256, 256}, 1);
    for (const auto& [device, path] : convolutionTargets()) planWithinBudget(conv.desc(), device, path);
  }
}

TEST_CASE("loop_budget: data movement at the extremes") {
  const vkdml::DeviceInfo devices[] = {test::device().info(), fullDevice()};
  constexpr auto U8 = DML_TENSOR_DATA_TYPE_UINT8;
  SUBCASE("Slice1: 2^31 rows of 2 elements that do not merge") {
    Desc input(U8, {65535, 32768, 2}, {1u << 21, 64, 1}), output(U8, {65535, 32768, 2});
    const UINT offsets[3] = {0, 0, 0}, sizes[3] = {65535, 32768, 2};
    const INT strides[3] = {1, 1, 1};
    DML_SLICE1_OPERATOR_DESC slice{&input.tensor, &output.tensor, 3, offsets, sizes, strides};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_SLICE1, &slice}, device);
  }
  SUBCASE("Slice1: 8 dimensions, 2^31 rows of 2") {
    Desc input(U8, {8, 8, 8, 8, 8, 8, 8191, 2},
               {(1u << 27) + 1, (1u << 24) + 1, (1u << 21) + 1, (1u << 18) + 1, (1u << 15) + 1, (1u << 12) + 1, 3, 1});
    Desc output(U8, {8, 8, 8, 8, 8, 8, 8191, 2});
    const UINT offsets[8] = {}, sizes[8] = {8, 8, 8, 8, 8, 8, 8191, 2};
    const INT strides[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    DML_SLICE1_OPERATOR_DESC slice{&input.tensor, &output.tensor, 8, offsets, sizes, strides};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_SLICE1, &slice}, device);
  }
  SUBCASE("Join: 65536 inputs of 32767 strided rows") {
    std::vector<std::unique_ptr<Desc>> inputs;
    std::vector<DML_TENSOR_DESC> descs;
    for (int i = 0; i < 65536; ++i) {
      inputs.push_back(std::make_unique<Desc>(U8, std::vector<UINT>{1, 32767, 2}, std::vector<UINT>{1u << 17, 4, 1}));
      descs.push_back(inputs.back()->tensor);
    }
    Desc output(U8, {65536, 32767, 2});
    DML_JOIN_OPERATOR_DESC join{65536, descs.data(), &output.tensor, 0};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_JOIN, &join}, device);
  }
  SUBCASE("Join: many short rows beside one row of 2^31 elements (found by the fuzzer)") {
    // The rows share their lanes: without pieces, the long row's lanes would
    // each walk 2^31 / 32 elements.
    Desc strided(U8, {1, 65536, 8192, 2}, {1u << 31, 1u << 15, 4, 1});
    Desc packed(U8, {1, 65536, 8192, 2});
    Desc output(U8, {2, 65536, 8192, 2});
    DML_TENSOR_DESC descs[2] = {strided.tensor, packed.tensor};
    DML_JOIN_OPERATOR_DESC join{2, descs, &output.tensor, 0};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_JOIN, &join}, device);
  }
  SUBCASE("Join: 2^30 rows of 2 over 8 dimensions beside rows of 2^14 (found by the fuzzer)") {
    // The long rows want 32 lanes each, which every short row then takes
    // too: only pieces shorter than 32 leave the short rows fewer lanes.
    const std::vector<UINT> inner = {4, 4, 4, 4, 4, 8, 2};
    std::vector<UINT> bigSizes = {(1u << 17) - 1}, smallSizes = {1}, outputSizes = {1u << 17};
    for (UINT s : inner) {
      bigSizes.push_back(s);
      smallSizes.push_back(s);
      outputSizes.push_back(s);
    }
    // Strides that merge no two dimensions: every row is 2 elements.
    const std::vector<UINT> bigStrides = {34133, 8533, 2133, 533, 133, 33, 4, 1};
    Desc big(U8, bigSizes, bigStrides), small(U8, smallSizes), output(U8, outputSizes);
    DML_TENSOR_DESC descs[2] = {big.tensor, small.tensor};
    DML_JOIN_OPERATOR_DESC join{2, descs, &output.tensor, 0};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_JOIN, &join}, device);
  }
  SUBCASE("DiagonalMatrix1: 2^32 - 2^16 rows of one element, one row of 2^32 - 2^16") {
    for (const std::vector<UINT>& shape : {std::vector<UINT>{65535, 65536, 1}, std::vector<UINT>{1, 65535u * 65536}}) {
      Desc output(U8, shape);
      DML_DIAGONAL_MATRIX1_OPERATOR_DESC diagonal{};
      diagonal.OutputTensor = &output.tensor;
      diagonal.ValueDataType = U8;
      for (const auto& device : devices) planWithinBudget({DML_OPERATOR_DIAGONAL_MATRIX1, &diagonal}, device);
    }
  }
  SUBCASE("ScatterND: 2^28 tuples of 8 coordinates") {
    Desc input(U8, {2, 2, 2, 2, 2, 2, 2, 2}), output(U8, {2, 2, 2, 2, 2, 2, 2, 2});
    Desc indices(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 1, 1, 1, 1, 1u << 28, 8});
    Desc updates(U8, {1, 1, 1, 1, 1, 1, 1, 1u << 28});
    DML_SCATTER_ND_OPERATOR_DESC scatter{&input.tensor, &indices.tensor, &updates.tensor, &output.tensor, 8, 2};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_SCATTER_ND, &scatter}, device);
  }
  SUBCASE("ScatterND: 4095 slices of 2^20 elements in 7 dimensions that do not merge") {
    const std::vector<UINT> shape = {4095, 8, 8, 8, 8, 8, 8, 4};
    Desc input(U8, shape);
    Desc output(U8, shape, {2396745, 299593, 37449, 4681, 585, 73, 9, 2});
    Desc indices(DML_TENSOR_DATA_TYPE_INT64, {1, 1, 1, 1, 1, 1, 4095, 1});
    Desc updates(U8, shape);
    DML_SCATTER_ND_OPERATOR_DESC scatter{&input.tensor, &indices.tensor, &updates.tensor, &output.tensor, 8, 2};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_SCATTER_ND, &scatter}, device);
  }
}

namespace {
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

// Plans `desc` if the test device accepts it (random descriptors may break
// a rule, such as a footprint too large); whether it was planned.
bool planIfValid(const DML_OPERATOR_DESC& desc, const std::vector<vkdml::DeviceInfo>& devices) {
  try {
    test::device().createOperator(desc);
  } catch (const vkdml::Error&) {
    return false;
  }
  for (const auto& device : devices) planWithinBudget(desc, device);
  return true;
}
}  // namespace

TEST_CASE("loop_budget: random data movement near the limits, planned") {
  // The fuzzer found plans over the budget that the cases above missed
  // (many short rows beside long ones over 8 dimensions); this walks many
  // more such shapes, planning without running.
  const std::vector<vkdml::DeviceInfo> devices = {test::device().info(), fullDevice()};
  constexpr auto U8 = DML_TENSOR_DATA_TYPE_UINT8;
  constexpr uint64_t kMaxElements = 0xFFFFFFFFull;
  HugeShapes r(20261126);
  int planned = 0;
  for (int round = 0; round < 1000; ++round) {
    CAPTURE(round);
    const uint32_t rank = 1 + r.below(8);
    {  // Join: up to 6 inputs along a random axis
      std::vector<UINT> outSizes = r.sizes(rank, kMaxElements);
      const uint32_t axis = r.below(rank);
      const uint32_t count = std::min<uint32_t>(1 + r.below(6), outSizes[axis]);
      std::vector<std::unique_ptr<Desc>> inputs;
      std::vector<DML_TENSOR_DESC> descs;
      UINT left = outSizes[axis];
      bool ok = true;
      for (uint32_t i = 0; i < count; ++i) {
        std::vector<UINT> sizes = outSizes;
        sizes[axis] = i + 1 == count ? left : 1 + r.below(left - (count - i - 1));
        left -= sizes[axis];
        std::vector<UINT> strides = r.strides(sizes, true);
        ok = ok && !strides.empty();
        inputs.push_back(std::make_unique<Desc>(U8, sizes, strides));
        descs.push_back(inputs.back()->tensor);
      }
      const std::vector<UINT> outStrides = r.strides(outSizes, false);
      if (ok && !outStrides.empty()) {
        Desc output(U8, outSizes, outStrides);
        DML_JOIN_OPERATOR_DESC join{count, descs.data(), &output.tensor, axis};
        planned += planIfValid({DML_OPERATOR_JOIN, &join}, devices);
      }
    }
    {  // Slice1: windows with strides of -4..4
      const std::vector<UINT> inSizes = r.sizes(rank, kMaxElements);
      std::vector<UINT> offsets(rank), windows(rank), outSizes(rank);
      std::vector<INT> steps(rank);
      for (uint32_t d = 0; d < rank; ++d) {
        offsets[d] = r.below(inSizes[d]);
        windows[d] = 1 + r.below(inSizes[d] - offsets[d]);
        const INT magnitude = static_cast<INT>(1 + r.below(4));
        steps[d] = r.below(4) == 0 ? -magnitude : magnitude;
        outSizes[d] = 1 + (windows[d] - 1) / static_cast<UINT>(magnitude);
      }
      const std::vector<UINT> inStrides = r.strides(inSizes, true), outStrides = r.strides(outSizes, false);
      if (!inStrides.empty() && !outStrides.empty()) {
        Desc input(U8, inSizes, inStrides), output(U8, outSizes, outStrides);
        DML_SLICE1_OPERATOR_DESC slice{&input.tensor,  &output.tensor, rank,
                                       offsets.data(), windows.data(), steps.data()};
        planned += planIfValid({DML_OPERATOR_SLICE1, &slice}, devices);
      }
    }
    {  // DiagonalMatrix1, with or without an input, of 1- or 4-byte elements: a random band
      const auto type = r.below(2) ? DML_TENSOR_DATA_TYPE_UINT32 : U8;
      const std::vector<UINT> sizes = r.sizes(2 + rank % 3, kMaxElements / 4);  // 2..4 dimensions
      const std::vector<UINT> strides = r.strides(sizes, false), inStrides = r.strides(sizes, true);
      if (!strides.empty() && !inStrides.empty()) {
        Desc output(type, sizes, strides), input(type, sizes, inStrides);
        DML_DIAGONAL_MATRIX1_OPERATOR_DESC diagonal{};
        diagonal.InputTensor = r.below(2) ? &input.tensor : nullptr;
        diagonal.OutputTensor = &output.tensor;
        diagonal.ValueDataType = type;
        diagonal.DiagonalFillBegin = static_cast<INT>(r.below(65536)) - 32768;
        diagonal.DiagonalFillEnd = diagonal.DiagonalFillBegin + static_cast<INT>(r.below(65536));
        planned += planIfValid({DML_OPERATOR_DIAGONAL_MATRIX1, &diagonal}, devices);
      }
    }
    {  // ScatterND over 8 dimensions: tuples of k coordinates, slices of the rest
      const uint32_t inputDims = rank, k = 1 + r.below(inputDims), sliceDims = inputDims - k;
      const uint32_t tupleDims = r.below(8 - sliceDims);  // the indices' leading dimensions, before k
      std::vector<UINT> inSizes(8, 1), indexSizes(8, 1), updateSizes(8, 1);
      const std::vector<UINT> meaningful = r.sizes(inputDims, kMaxElements);
      std::copy(meaningful.begin(), meaningful.end(), inSizes.end() - inputDims);
      uint64_t slice = 1;
      for (uint32_t d = 8 - sliceDims; d < 8; ++d) slice *= inSizes[d];
      const std::vector<UINT> tuples = r.sizes(tupleDims, kMaxElements / std::max<uint64_t>(slice, k));
      std::copy(tuples.begin(), tuples.end(), indexSizes.end() - 1 - tupleDims);
      indexSizes[7] = k;
      std::copy(tuples.begin(), tuples.end(), updateSizes.end() - sliceDims - tupleDims);
      std::copy(inSizes.end() - sliceDims, inSizes.end(), updateSizes.end() - sliceDims);
      const auto indexType = std::array{DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32,
                                        DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT64}[r.below(4)];
      const std::vector<UINT> inStrides = r.strides(inSizes, true), outStrides = r.strides(inSizes, false);
      const std::vector<UINT> indexStrides = r.strides(indexSizes, true), updateStrides = r.strides(updateSizes, true);
      if (!inStrides.empty() && !outStrides.empty() && !indexStrides.empty() && !updateStrides.empty()) {
        Desc input(U8, inSizes, inStrides), output(U8, inSizes, outStrides);
        Desc indices(indexType, indexSizes, indexStrides), updates(U8, updateSizes, updateStrides);
        DML_SCATTER_ND_OPERATOR_DESC scatter{&input.tensor,  &indices.tensor, &updates.tensor,
                                             &output.tensor, inputDims,       tupleDims + 1};
        planned += planIfValid({DML_OPERATOR_SCATTER_ND, &scatter}, devices);
      }
    }
  }
  // Most random descriptors are valid: a test that planned few would prove little.
  CHECK(planned >= 2500);
  MESSAGE("planned " << planned << " of 4000 random descriptors");
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
    for (const auto& [device, path] : convolutionTargets()) planWithinBudget(conv.desc(), device, path);
  }
  CHECK(planned >= 300);
  MESSAGE("planned " << planned << " of 600 random convolutions");
}

namespace {
// A CPU device (lavapipe) with the H200-like limits: data movement whose
// runs are long takes transfer commands there (runtime/core/copy.hpp, planTransfer).
vkdml::DeviceInfo cpuDevice() {
  vkdml::DeviceInfo info = fullDevice();
  info.name = "CPU";
  info.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  return info;
}

// Each transfer's slots and regions {source, destination, bytes}.
using Regions = std::vector<std::array<uint64_t, 3>>;
std::vector<std::pair<std::pair<uint32_t, uint32_t>, Regions>> transfersOf(const Dispatch& d) {
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, Regions>> out;
  for (const auto& t : d.transfers) {
    Regions regions;
    for (const VkBufferCopy& r : t.regions) regions.push_back({r.srcOffset, r.dstOffset, r.size});
    out.push_back({{t.sourceSlot, t.destinationSlot}, regions});
  }
  return out;
}

std::vector<Dispatch> planFor(const DML_OPERATOR_DESC& desc, const vkdml::DeviceInfo& device,
                              const vkdml::CompileOptions& options = {},
                              const vkdml::detail::PlanDefaults& defaults = {}) {
  return vkdml::detail::Access::plan(test::device().createOperator(desc)).plan(device, options, defaults);
}

struct Slice {
  Desc input, output;
  std::vector<UINT> offsets, sizes;
  std::vector<INT> strides;
  DML_SLICE1_OPERATOR_DESC slice{};
  Slice(DML_TENSOR_DATA_TYPE type, std::vector<UINT> in, std::vector<UINT> out, std::vector<INT> st)
      : input(type, in), output(type, out), offsets(in.size(), 0), sizes(std::move(in)), strides(std::move(st)) {
    slice = {&input.tensor,  &output.tensor, static_cast<UINT>(sizes.size()),
             offsets.data(), sizes.data(),   strides.data()};
  }
  DML_OPERATOR_DESC desc() const { return {DML_OPERATOR_SLICE1, &slice}; }
};
}  // namespace

TEST_CASE("copy plan: a CPU device copies long contiguous runs with transfer commands, a GPU with the kernel") {
  constexpr auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;
  SUBCASE("Join along an outer axis: one region per row of each input") {
    Desc a(F32, {2, 3, 8}), b(F32, {2, 3, 8}), c(F32, {2, 3, 8}), output(F32, {2, 9, 8});
    const DML_TENSOR_DESC inputs[3] = {a.tensor, b.tensor, c.tensor};
    DML_JOIN_OPERATOR_DESC join{3, inputs, &output.tensor, 1};
    const auto cpu = planFor({DML_OPERATOR_JOIN, &join}, cpuDevice());
    REQUIRE(cpu.size() == 1);
    CHECK(cpu[0].loopPasses == 0);
    const auto transfers = transfersOf(cpu[0]);
    REQUIRE(transfers.size() == 3);
    for (uint32_t k = 0; k < 3; ++k) {  // 96-byte rows; the output's rows are 288 bytes apart
      CHECK(transfers[k].first == std::pair<uint32_t, uint32_t>{k, 3});
      CHECK(transfers[k].second == Regions{{0, 96 * k, 96}, {96, 288 + 96 * k, 96}});
    }
    const auto gpu = planFor({DML_OPERATOR_JOIN, &join}, fullDevice());
    REQUIRE(gpu.size() == 1);
    CHECK(gpu[0].transfers.empty());
  }
  SUBCASE("Join along the last axis: 8-byte runs stay with the kernel") {
    Desc a(F32, {64, 2}), b(F32, {64, 2}), output(F32, {64, 4});
    const DML_TENSOR_DESC inputs[2] = {a.tensor, b.tensor};
    DML_JOIN_OPERATOR_DESC join{2, inputs, &output.tensor, 1};
    CHECK(planFor({DML_OPERATOR_JOIN, &join}, cpuDevice()).at(0).transfers.empty());
  }
  SUBCASE("Slice1 flipping an outer dimension: rows in reverse, one region each") {
    Slice flip(F32, {3, 32}, {3, 32}, {-1, 1});
    const auto cpu = planFor(flip.desc(), cpuDevice());
    REQUIRE(cpu.size() == 1);
    const auto transfers = transfersOf(cpu[0]);
    REQUIRE(transfers.size() == 1);
    CHECK(transfers[0].first == std::pair<uint32_t, uint32_t>{0, 1});
    CHECK(transfers[0].second == Regions{{256, 0, 128}, {128, 128, 128}, {0, 256, 128}});
    CHECK(planFor(flip.desc(), fullDevice()).at(0).transfers.empty());
  }
  SUBCASE("Slice1 flipping the innermost dimension or striding it: the kernel") {
    Slice flip(F32, {3, 32}, {3, 32}, {1, -1});
    CHECK(planFor(flip.desc(), cpuDevice()).at(0).transfers.empty());
    Slice strided(F32, {3, 64}, {3, 32}, {1, 2});
    CHECK(planFor(strided.desc(), cpuDevice()).at(0).transfers.empty());
  }
  SUBCASE("at most 65536 regions") {
    Slice within(DML_TENSOR_DATA_TYPE_UINT8, {131072, 64}, {65536, 64}, {2, 1});
    const auto planned = planFor(within.desc(), cpuDevice());
    REQUIRE(planned.at(0).transfers.size() == 1);
    CHECK(planned[0].transfers[0].regions.size() == 65536);
    CHECK(planned[0].transfers[0].regions.back().srcOffset == 65535ull * 128);
    Slice beyond(DML_TENSOR_DATA_TYPE_UINT8, {131074, 64}, {65537, 64}, {2, 1});
    CHECK(planFor(beyond.desc(), cpuDevice()).at(0).transfers.empty());
  }
  SUBCASE("ScatterND: the input copied whole, no mask in scratch") {
    Desc input(F32, {40, 24}), output(F32, {40, 24}), updates(F32, {12, 24});
    Desc indices(DML_TENSOR_DATA_TYPE_INT64, {12, 1});
    DML_SCATTER_ND_OPERATOR_DESC scatter{&input.tensor, &indices.tensor, &updates.tensor, &output.tensor, 2, 2};
    const auto cpu = planFor({DML_OPERATOR_SCATTER_ND, &scatter}, cpuDevice());
    REQUIRE(cpu.size() == 2);
    CHECK(transfersOf(cpu[0]) == decltype(transfersOf(cpu[0])){{{0, 3}, Regions{{0, 0, 40 * 24 * 4}}}});
    CHECK(cpu[0].skipWhenSlotsAlias == std::pair<uint32_t, uint32_t>{0, 3});  // in place: nothing to copy
    CHECK(cpu[1].transfers.empty());
    CHECK((cpu[0].scratchBytes == 0 && cpu[1].scratchBytes == 0));
    const auto gpu = planFor({DML_OPERATOR_SCATTER_ND, &scatter}, fullDevice());
    REQUIRE(gpu.size() == 3);  // mark, copy the rest, scatter
    CHECK(gpu[1].scratchBytes > 0);
  }
  SUBCASE("CopyPath::Kernel keeps the kernel, from the options or the Device's default ($VKDML_COPY_PATH)") {
    using vkdml::CopyPath;
    Slice flip(F32, {3, 32}, {3, 32}, {-1, 1});
    vkdml::detail::PlanDefaults kernelDefault;
    kernelDefault.copyPath = CopyPath::Kernel;
    CHECK(planFor(flip.desc(), cpuDevice()).at(0).transfers.size() == 1);
    CHECK(planFor(flip.desc(), cpuDevice(), {}, kernelDefault).at(0).transfers.empty());
    vkdml::CompileOptions kernel;
    kernel.copyPath = CopyPath::Kernel;
    CHECK(planFor(flip.desc(), cpuDevice(), kernel).at(0).transfers.empty());
    vkdml::CompileOptions wrong;
    wrong.copyPath = static_cast<CopyPath>(7);
    try {
      test::device().compileOperator(test::device().createOperator(flip.desc()), wrong);
      FAIL("no error");
    } catch (const vkdml::Error& e) {
      CHECK(e.code() == vkdml::ErrorCode::InvalidArgument);
      CHECK(e.op() == "DML_SLICE1");
      CHECK(e.field() == "CompileOptions.copyPath");
      CHECK(std::string(e.what()).find("(7)") != std::string::npos);
    }
    // The environment fills the default once, when a Device is created.
    auto kernelNames = [&](vkdml::Device& device) {
      return device.compileOperator(device.createOperator(flip.desc())).kernelNames();
    };
    const std::vector<std::string> before = kernelNames(test::device());
    {
      test::ScopedEnvironment kernelEnvironment("VKDML_COPY_PATH", "kernel");
      CHECK(kernelNames(*test::createDevice()).at(0).rfind("copy_", 0) == 0);
      CHECK(kernelNames(test::device()) == before);  // a device created before keeps its default
    }
    {
      test::ScopedEnvironment automatic("VKDML_COPY_PATH", "auto");
      const bool cpu = test::device().info().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
      const std::string name = kernelNames(*test::createDevice()).at(0);
      CHECK((cpu ? name == "vkCmdCopyBuffer" : name.rfind("copy_", 0) == 0));
    }
    test::expectRefusedAtDeviceCreation("VKDML_COPY_PATH", "transfers");
  }
}

TEST_CASE("copy plan: DiagonalMatrix1 on a CPU device: the input or zeros whole then Value, or runs per row") {
  constexpr auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;
  using Fills = std::vector<std::array<uint64_t, 3>>;  // {offset, bytes, data}
  auto fillsOf = [](const Dispatch& d) {
    Fills out;
    for (const auto& f : d.fills) out.push_back({f.offset, f.size, f.data});
    return out;
  };
  Desc input(F32, {3, 32}), output(F32, {3, 32});
  DML_DIAGONAL_MATRIX1_OPERATOR_DESC diag{&input.tensor, &output.tensor, F32, {}, INT32_MIN, 1};
  const DML_OPERATOR_DESC op{DML_OPERATOR_DIAGONAL_MATRIX1, &diag};
  SUBCASE("triu(m, 1): the input in one region, then zeros up to the diagonal (4 commands, not 6 per row)") {
    const auto cpu = planFor(op, cpuDevice());
    REQUIRE(cpu.size() == 2);
    CHECK(transfersOf(cpu[0]) == decltype(transfersOf(cpu[0])){{{0, 1}, {{0, 0, 384}}}});
    CHECK(cpu[0].fills.empty());
    CHECK(cpu[1].transfers.empty());
    CHECK(fillsOf(cpu[1]) == Fills{{0, 4, 0}, {128, 8, 0}, {256, 12, 0}});
    CHECK(cpu[0].loopPasses == 0);
    CHECK(cpu[1].loopPasses == 0);
  }
  SUBCASE("triu(m, 1000) of 64 x 1024: runs per row, where copying the input whole moves more than it saves") {
    Desc wideIn(F32, {64, 1024}), wideOut(F32, {64, 1024});
    diag.InputTensor = &wideIn.tensor;
    diag.OutputTensor = &wideOut.tensor;
    diag.DiagonalFillEnd = 1000;
    const auto cpu = planFor(op, cpuDevice());
    REQUIRE(cpu.size() == 1);
    REQUIRE(cpu[0].transfers.size() == 1);
    CHECK(cpu[0].transfers[0].regions.size() == 24);  // rows 0-23 keep x >= y + 1000
    CHECK(cpu[0].fills.size() == 25);                 // then rows 24-63 are one fill of zeros
  }
  SUBCASE("a band outside the matrix: the rows, copied whole, merge into one region") {
    diag.DiagonalFillEnd = -40;  // x - y >= -40 everywhere: nothing zero-filled
    const auto cpu = planFor(op, cpuDevice());
    REQUIRE(cpu.size() == 1);
    CHECK(transfersOf(cpu[0]) == decltype(transfersOf(cpu[0])){{{0, 1}, {{0, 0, 384}}}});
    CHECK(cpu[0].fills.empty());
  }
  SUBCASE("triu(m, 1) from an input of padded rows: runs per row, where layers copy more for as many commands") {
    Desc padded(F32, {3, 32}, {64, 1});
    diag.InputTensor = &padded.tensor;
    const auto cpu = planFor(op, cpuDevice());
    REQUIRE(cpu.size() == 1);
    CHECK(fillsOf(cpu[0]) == Fills{{0, 4, 0}, {128, 8, 0}, {256, 12, 0}});
    CHECK(transfersOf(cpu[0]) ==
          decltype(transfersOf(cpu[0])){{{0, 1}, {{4, 4, 124}, {264, 136, 120}, {524, 268, 116}}}});
  }
  SUBCASE("eye: zeros in one fill, then Value on the diagonal") {
    diag.InputTensor = nullptr;
    diag.Value.Float32 = 1.0f;
    diag.DiagonalFillBegin = 0;
    const uint32_t one = 0x3F800000;
    const auto cpu = planFor(op, cpuDevice());
    REQUIRE(cpu.size() == 2);
    CHECK(fillsOf(cpu[0]) == Fills{{0, 384, 0}});
    CHECK(fillsOf(cpu[1]) == Fills{{0, 4, one}, {132, 4, one}, {264, 4, one}});
    CHECK((cpu[0].transfers.empty() && cpu[1].transfers.empty()));
  }
  SUBCASE(
      "the kernel elsewhere: a GPU, CopyPath::Kernel, 2-byte elements, 8-byte Values of unequal halves, strided rows") {
    auto kernelOnly = [](const std::vector<Dispatch>& plan) {
      return plan.size() == 1 && !plan[0].isTransfer() && plan[0].loopPasses > 0;
    };
    CHECK(kernelOnly(planFor(op, fullDevice())));
    vkdml::CompileOptions kernel;
    kernel.copyPath = vkdml::CopyPath::Kernel;
    CHECK(kernelOnly(planFor(op, cpuDevice(), kernel)));
    Desc in16(DML_TENSOR_DATA_TYPE_FLOAT16, {3, 64}), out16(DML_TENSOR_DATA_TYPE_FLOAT16, {3, 64});
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC half{&in16.tensor, &out16.tensor, DML_TENSOR_DATA_TYPE_FLOAT16, {}, 0, 1};
    CHECK(kernelOnly(planFor({DML_OPERATOR_DIAGONAL_MATRIX1, &half}, cpuDevice())));
    Desc in64(DML_TENSOR_DATA_TYPE_INT64, {3, 64}), out64(DML_TENSOR_DATA_TYPE_INT64, {3, 64});
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC wide{&in64.tensor, &out64.tensor, DML_TENSOR_DATA_TYPE_INT64, {}, 0, 1};
    wide.Value.Int64 = 1;  // halves 1 and 0
    CHECK(kernelOnly(planFor({DML_OPERATOR_DIAGONAL_MATRIX1, &wide}, cpuDevice())));
    wide.Value.Int64 = -1;  // halves equal
    CHECK(planFor({DML_OPERATOR_DIAGONAL_MATRIX1, &wide}, cpuDevice()).at(1).fills.size() == 3);
    Desc strided(F32, {3, 32}, {64, 2});
    diag.OutputTensor = &strided.tensor;
    CHECK(kernelOnly(planFor(op, cpuDevice())));
  }
}

TEST_CASE("compile options: an enum outside its values is refused for every operator") {
  // compileOperator checks CompileOptions before planning (core/options.cpp),
  // whether or not the operator reads the field.
  vkdml::Device& d = test::device();
  constexpr auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;
  Desc input(F32, {2, 8}), output(F32, {2, 8});
  DML_DIAGONAL_MATRIX1_OPERATOR_DESC diag{&input.tensor, &output.tensor, F32, {}, 0, 1};
  const vkdml::Operator op = d.createOperator({DML_OPERATOR_DIAGONAL_MATRIX1, &diag});
  auto refused = [&](vkdml::CompileOptions options, const std::string& field) {
    try {
      d.compileOperator(op, options);
      FAIL("accepted " << field);
    } catch (const vkdml::Error& e) {
      CHECK(e.code() == vkdml::ErrorCode::InvalidArgument);
      CHECK(e.op() == "DML_DIAGONAL_MATRIX1");
      CHECK(e.field() == field);
    }
  };
  vkdml::CompileOptions options;
  options.convolutionPath = static_cast<vkdml::ConvolutionPath>(5);
  refused(options, "CompileOptions.convolutionPath");
  options = {};
  options.convolutionPacking = static_cast<vkdml::ConvolutionPacking>(-1);
  refused(options, "CompileOptions.convolutionPacking");
  options = {};
  options.copyPath = static_cast<vkdml::CopyPath>(2);
  refused(options, "CompileOptions.copyPath");
  options = {};
  options.convolutionPath = vkdml::ConvolutionPath::Portable;  // known values are taken, read or not
  CHECK_NOTHROW(d.compileOperator(op, options));
}
