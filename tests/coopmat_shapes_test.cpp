// The cooperative-matrix kernel's fragment shapes (shaders/coopmat/fragments.glsl):
// which shape the KHR path takes from a device's list, what
// CompileOptions::matrixShape accepts, and the kernel against the reference
// emulated at NVIDIA's 16x8x32, AMD's 16x16x16 and Intel's 8x16x32 on any
// device (lavapipe in CI) and on the KHR path at every other shape the
// device lists, each packing, every 16x16x32 block's fragments reached.
// Named apart from "convolution_integer: *" so that the per-path reruns
// (tests/CMakeLists.txt) do not repeat it.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "interface/convolution_integer.h"

#include "convolution_integer.hpp"
#include "planning.hpp"
#include "support.hpp"

using test::Tensor;
using namespace test::conv;
using Shape = vkdml::DeviceInfo::MatrixShape;

namespace {

// The plan's GEMM kernel (the last dispatch) for a 3x3 convolution of 64
// channels into 64 on `device`, forced onto `path`.
std::string gemmKernel(const vkdml::DeviceInfo& device, vkdml::ConvolutionPath path, Shape shape = Shape{}) {
  Tensor input(U8, {1, 64, 8, 8}), filter(I8, {64, 64, 3, 3}), output(I32, {1, 64, 8, 8});
  Conv conv{{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1};
  const vkdml::Operator op = test::device().createOperator(conv.make(input, nullptr, filter, nullptr, output));
  vkdml::CompileOptions options;
  options.convolutionPath = path;
  options.matrixShape = shape;
  const std::vector<vkdml::detail::Dispatch> plan = vkdml::detail::Access::plan(op).plan(device, options, {});
  REQUIRE(!plan.empty());
  return vkdml::detail::kernelName(plan.back().kernel);
}

// A device with the KHR extension listing `shapes` (and no NV extension).
vkdml::DeviceInfo khrDevice(std::vector<Shape> shapes) {
  vkdml::DeviceInfo info = test::planning::fullDevice();
  info.cooperativeMatrixNV = info.cooperativeMatrixInt8 = false;
  info.shaderInt8 = info.vulkanMemoryModel = info.cooperativeMatrixKHR = info.cooperativeMatrixKHRInt8 = true;
  info.cooperativeMatrixKHRInt8Shapes = std::move(shapes);
  return info;
}

// Whether the GEMM kernel's name ends in the shape's suffix (none for 16x16x32).
bool hasShape(const std::string& kernel, const std::string& suffix) {
  if (suffix.empty()) return kernel.find("_f") == std::string::npos;
  return kernel.size() >= suffix.size() && kernel.compare(kernel.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Sets the options of test::run to `path` at `shape` and `packing`,
// restoring them on leaving.
struct ForcedShape {
  vkdml::CompileOptions previous = test::compileOptions();
  ForcedShape(vkdml::ConvolutionPath path, Shape shape, vkdml::ConvolutionPacking packing) {
    test::compileOptions().convolutionPath = path;
    test::compileOptions().convolutionPacking = packing;
    test::compileOptions().matrixShape = shape;
  }
  ~ForcedShape() { test::compileOptions() = previous; }
  ForcedShape(const ForcedShape&) = delete;
  ForcedShape& operator=(const ForcedShape&) = delete;
};

}  // namespace

TEST_CASE("coopmat_shapes: the KHR path takes the first listed shape of 16x16x32, 16x8x32, 16x16x16, 8x16x32") {
  const auto khr = vkdml::ConvolutionPath::CooperativeMatrixKHR;
  struct Expected {
    std::vector<Shape> listed;
    const char* suffix;
  };
  const Expected cases[] = {
      {{{16, 8, 32}, {16, 16, 32}, {16, 16, 16}}, ""},  // NVIDIA: 16x16x32 wherever listed
      {{{16, 8, 32}, {8, 8, 32}}, "_f16x8x32"},        {{{16, 16, 16}}, "_f16x16x16"},  // AMD RDNA3
      {{{8, 16, 32}, {16, 16, 16}}, "_f16x16x16"},  // fewer fragments per block first
      {{{8, 16, 32}, {8, 8, 32}}, "_f8x16x32"},     // Intel's 8-row shape
  };
  for (const Expected& e : cases) {
    CAPTURE(e.suffix);
    const std::string kernel = gemmKernel(khrDevice(e.listed), khr);
    CAPTURE(kernel);
    CHECK(kernel.find("coopmat_khr") != std::string::npos);
    CHECK(hasShape(kernel, e.suffix));
  }
  // No shape the kernels take, or subgroups other than 32 lanes: refused,
  // naming what is missing.
  auto refusal = [&](const vkdml::DeviceInfo& device) {
    try {
      gemmKernel(device, khr);
      FAIL("planned the KHR path on a device that cannot run it");
    } catch (const vkdml::Error& error) {
      CHECK(error.code() == vkdml::ErrorCode::Unsupported);
      CHECK(error.op() == "DML_CONVOLUTION_INTEGER");
      CHECK(error.field() == "CompileOptions.convolutionPath");
      return std::string(error.what());
    }
    return std::string();
  };
  CHECK(refusal(khrDevice({{8, 8, 32}, {32, 8, 16}})).find("16x16x32, 16x8x32, 16x16x16 or 8x16x32") !=
        std::string::npos);
  // 64-lane subgroups: refused where 32 cannot be asked for, taken (with
  // 32 lanes required) where it can, as on AMD's RDNA3.
  vkdml::DeviceInfo wave64 = khrDevice({{16, 16, 16}});
  wave64.subgroupSize = wave64.minSubgroupSize = wave64.maxSubgroupSize = 64;
  CHECK(refusal(wave64).find("32-lane subgroups (it has 64") != std::string::npos);
  wave64.minSubgroupSize = 32;
  CHECK(hasShape(gemmKernel(wave64, khr), "_f16x16x16"));
  // A shape asked for: taken where listed, else refused.
  CHECK(hasShape(gemmKernel(khrDevice({{16, 16, 32}, {16, 8, 32}}), khr, {16, 8, 32}), "_f16x8x32"));
  try {
    gemmKernel(khrDevice({{16, 16, 32}, {16, 8, 32}}), khr, {16, 16, 16});
    FAIL("planned a shape the device does not list");
  } catch (const vkdml::Error& error) {
    CHECK(error.code() == vkdml::ErrorCode::Unsupported);
    CHECK(error.field() == "CompileOptions.matrixShape");
    CHECK(std::string(error.what()).find("16x16x16") != std::string::npos);
  }
  // The NV path keeps 16x16x32.
  CHECK(hasShape(gemmKernel(test::planning::fullDevice(), vkdml::ConvolutionPath::CooperativeMatrix), ""));
}

TEST_CASE("coopmat_shapes: CompileOptions::matrixShape on the emulated and NV paths") {
  const auto emulated = vkdml::ConvolutionPath::CooperativeMatrixEmulated;
  const vkdml::DeviceInfo device = test::planning::fullDevice();
  CHECK(hasShape(gemmKernel(device, emulated), ""));
  CHECK(hasShape(gemmKernel(device, emulated, {16, 8, 32}), "_f16x8x32"));
  CHECK(hasShape(gemmKernel(device, emulated, {16, 16, 16}), "_f16x16x16"));
  CHECK(hasShape(gemmKernel(device, emulated, {8, 16, 32}), "_f8x16x32"));
  CHECK(hasShape(gemmKernel(device, vkdml::ConvolutionPath::CooperativeMatrix, {16, 16, 32}), ""));
  // Shapes without kernels on the path are refused; the portable path ignores the option.
  const std::pair<vkdml::ConvolutionPath, Shape> refused[] = {
      {emulated, {8, 8, 32}}, {vkdml::ConvolutionPath::CooperativeMatrix, {16, 16, 16}}, {emulated, {32, 8, 16}}};
  for (const auto& r : refused) {
    try {
      gemmKernel(device, r.first, r.second);
      FAIL("accepted a shape the path's kernels lack");
    } catch (const vkdml::Error& error) {
      CHECK(error.code() == vkdml::ErrorCode::InvalidArgument);
      CHECK(error.op() == "DML_CONVOLUTION_INTEGER");
      CHECK(error.field() == "CompileOptions.matrixShape");
      CHECK(std::string(error.what())
                .find(std::to_string(r.second.m) + "x" + std::to_string(r.second.n) + "x" +
                      std::to_string(r.second.k)) != std::string::npos);
    }
  }
  CHECK(gemmKernel(device, vkdml::ConvolutionPath::Portable, {16, 8, 32}).find("coopmat") == std::string::npos);
}

// Each case spans several 16x16x32 blocks in m, n and k with partial ones
// at the ends (rows past M, columns past Ng, a partial K step), so a
// fragment at a wrong row, column or depth of its block changes the result.
// Tiles of 128 columns on 8 warps (Ng > 64) and of 64 on 4 (Ng <= 64).
void runShape(vkdml::ConvolutionPath path, Shape shape, std::mt19937_64& rng) {
  const DML_TENSOR_DATA_TYPE types[4][2] = {{U8, U8}, {U8, I8}, {I8, U8}, {I8, I8}};
  int i = 0;
  for (const vkdml::ConvolutionPacking packing :
       {vkdml::ConvolutionPacking::None, vkdml::ConvolutionPacking::Filter, vkdml::ConvolutionPacking::Both,
        vkdml::ConvolutionPacking::ChannelsLast}) {
    INFO(vkdml::toString(path) << " at " << shape.m << "x" << shape.n << "x" << shape.k << ", packing "
                               << static_cast<int>(packing));
    ForcedShape options(path, shape, packing);
    for (Case c : {case2d({1, 32, 6, 7}, {90, 32, 3, 3}, 1, 1, 1, 1, 1),     // 42 rows, 90 columns, 9 K steps
                   case2d({2, 40, 5, 4}, {37, 40, 1, 1}, 1, 1, 0, 0, 1)}) {  // 4 warps, K of 2 steps, the 2nd partial
      c.inputType = types[i % 4][0];
      c.filterType = types[i % 4][1];
      c.inputZeroPoint = i % 2 ? ZeroPoint::PerTensor : ZeroPoint::None;
      c.filterZeroPoint = static_cast<ZeroPoint>(i++ % 3);
      runCase(c, rng);
    }
  }
  ForcedShape options(path, shape, vkdml::ConvolutionPacking::Auto);
  runCase(randomCase(rng), rng);
}

bool emulatedRuns() {
  const vkdml::DeviceInfo& info = test::device().info();
  if (info.maxComputeSharedMemorySize >= vkdml::shader::coopmatSharedBytes(8, 128) && info.subgroupShuffleRelative &&
      info.subgroupSize >= 4)
    return true;
  MESSAGE("skipped: the device cannot run the emulated cooperative-matrix kernel");
  return false;
}

TEST_CASE("coopmat_shapes: the emulated kernel at 16x16x16 fragments, bit-exact") {
  std::mt19937_64 rng(140);
  if (emulatedRuns()) runShape(vkdml::ConvolutionPath::CooperativeMatrixEmulated, {16, 16, 16}, rng);
}

TEST_CASE("coopmat_shapes: the emulated kernel at 16x8x32 fragments, bit-exact") {
  std::mt19937_64 rng(143);
  if (emulatedRuns()) runShape(vkdml::ConvolutionPath::CooperativeMatrixEmulated, {16, 8, 32}, rng);
}

TEST_CASE("coopmat_shapes: the emulated kernel at 8x16x32 fragments, bit-exact") {
  std::mt19937_64 rng(141);
  if (emulatedRuns()) runShape(vkdml::ConvolutionPath::CooperativeMatrixEmulated, {8, 16, 32}, rng);
}

// On a device with the KHR path (the H100 lists 16x16x32 and 16x8x32), the
// tensor cores at each listed shape the kernels take beside 16x16x32
// (which every convolution case runs on coopmat-khr).
TEST_CASE("coopmat_shapes: the KHR kernel at each other listed shape, bit-exact") {
  const vkdml::DeviceInfo& info = test::device().info();
  bool hasKhr = false;
  for (const vkdml::OperatorSupport& op : test::device().featureSupport().operators)
    for (vkdml::ConvolutionPath path : op.convolutionPaths)
      hasKhr = hasKhr || path == vkdml::ConvolutionPath::CooperativeMatrixKHR;
  if (!hasKhr) {
    MESSAGE("skipped: the device has no coopmat-khr path");
    return;
  }
  std::mt19937_64 rng(142);
  for (const Shape& shape : info.cooperativeMatrixKHRInt8Shapes)
    if (!(shape.m == 16 && shape.n == 16 && shape.k == 32) &&
        std::any_of(std::begin(vkdml::detail::kFragmentShapes), std::end(vkdml::detail::kFragmentShapes),
                    [&](const Shape& s) { return vkdml::detail::sameShape(s, shape); }))
      runShape(vkdml::ConvolutionPath::CooperativeMatrixKHR, shape, rng);
}
