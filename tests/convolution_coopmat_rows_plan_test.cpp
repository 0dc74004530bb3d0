// Which rows a cooperative-matrix tile takes (runtime/ops/convolution_integer_plan.cpp):
// 96 in place of 128 where A comes channels-last, 64 where 4 warps gather
// it, each where the device counts its multiprocessors and the shorter
// tiles take no more waves, or wherever $VKDML_COOPMAT_ROWS says. (The
// results of those plans: convolution_integer_rows_test.cpp.)
#include <cstring>

#include "interface/convolution_integer.h"
#include "planning.hpp"

using namespace test::planning;

namespace {

// The GEMM of `c`'s plan on `device` with $VKDML_COOPMAT_ROWS at `rows` (0: unset).
template <typename Conv>
Gemm gemm(const Conv& c, const vkdml::DeviceInfo& device, uint32_t rows,
          vkdml::ConvolutionPacking packing = vkdml::ConvolutionPacking::Auto,
          vkdml::ConvolutionPath path = vkdml::ConvolutionPath::CooperativeMatrix) {
  vkdml::detail::PlanDefaults defaults;
  defaults.coopmatRows = rows;
  const std::vector<Dispatch> d = planOn(c, device, packing, path, defaults);
  return Gemm{kernelName(d.back().kernel), d.back().groups[0]};
}
// `device` with int8 KHR cooperative matrices of 16x16x32.
vkdml::DeviceInfo withKhr(vkdml::DeviceInfo device) {
  device.shaderInt8 = device.vulkanMemoryModel = device.cooperativeMatrixKHR = device.cooperativeMatrixKHRInt8 = true;
  device.cooperativeMatrixKHRInt8Shapes = {{16, 16, 32}};
  return device;
}

}  // namespace

// Tiles of 96 rows (the _m96 variants) where A comes channels-last on
// 8-warp tiles of 128 columns and K is not split: where the device counts
// its multiprocessors, if they take no more waves than tiles of 128 rows;
// with $VKDML_COOPMAT_ROWS=96 (defaults.coopmatRows) wherever they apply,
// with 64 or 128 nowhere. (Their results: "convolution_integer: tiles of 96
// rows", whose shapes are those below.)
TEST_CASE("convolution plan: tiles of 96 rows") {
  const auto channelsLast = vkdml::ConvolutionPacking::ChannelsLast, auto_ = vkdml::ConvolutionPacking::Auto;
  const auto nv = vkdml::ConvolutionPath::CooperativeMatrix;
  const vkdml::DeviceInfo h200 = withMultiprocessors(fullDevice(), 132), uncounted = fullDevice();
  const vkdml::DeviceInfo khr = withKhr(h200);
  // ResNet-50's layer3 3x3 256->256 14x14 at batch 32, A channels-last:
  // 6272 rows in 98 tiles of 128 rows (one wave of 132), 132 of 96.
  const SameConv layer3(32, 256, 256, 14, 14, 3);
  Gemm g = gemm(layer3, h200, 0);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_m96_n128_i32_packed");
  CHECK(g.workgroups == 132);
  g = gemm(layer3, khr, 0, auto_, vkdml::ConvolutionPath::CooperativeMatrixKHR);
  CHECK(g.kernel == "convolution_integer_coopmat_khr_m96_n128_i32_packed");
  CHECK(g.workgroups == 132);
  // 98 multiprocessors: 98 tiles take one wave, 132 two. None counted.
  g = gemm(layer3, withMultiprocessors(fullDevice(), 98), 0);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_n128_i32_packed");
  CHECK(g.workgroups == 98);
  CHECK(gemm(layer3, uncounted, 0).kernel == "convolution_integer_coopmat_nv_n128_i32_packed");
  // Forced either way.
  CHECK(gemm(layer3, h200, 128).kernel == "convolution_integer_coopmat_nv_n128_i32_packed");
  g = gemm(layer3, uncounted, 96);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_m96_n128_i32_packed");
  CHECK(g.workgroups == 132);
  // Not where A is the im2col matrix or gathered, nor on 256 columns (28 x 28: 196 such tiles).
  CHECK(gemm(layer3, h200, 96, vkdml::ConvolutionPacking::Both).kernel ==
        "convolution_integer_coopmat_nv_n128_i32_packed");
  CHECK(gemm(layer3, h200, 96, vkdml::ConvolutionPacking::Filter).kernel.find("_m96") == std::string::npos);
  CHECK(gemm(SameConv(32, 256, 256, 28, 28, 3), h200, 96).kernel.find("_m96") == std::string::npos);
  // The shapes of the test of their results (over 1024 rows: fewer take
  // tiles of 64 columns; K under 12 steps: not split; over 128 columns,
  // where 8 warps take tiles of 128, fewer taking 16 warps on this device):
  // 1100 rows (the last tile's 44 the first warp's), 1122 over two images
  // (the last tile's 66 reach the second warp's), 1089 of stride 2, two
  // groups of 160 columns over 1156 rows, a 1x1 kernel over 1152.
  const auto emulated = vkdml::ConvolutionPath::CooperativeMatrixEmulated;
  const std::string m96 = "convolution_integer_coopmat_emulated_m96_n128_i32_packed";
  const SameConv one(1, 32, 200, 20, 55, 3), three(2, 32, 256, 17, 33, 3), pointwise(2, 96, 240, 24, 24, 1);
  const PaddedConv strided(32, 144, 66, 3, 2, 1), grouped(64, 320, 34, 3, 1, 1, 2);
  CHECK(gemm(one, uncounted, 96, channelsLast, emulated).kernel == m96);
  CHECK(gemm(three, uncounted, 96, channelsLast, emulated).kernel == m96);
  CHECK(gemm(pointwise, uncounted, 96, channelsLast, emulated).kernel == m96);
  CHECK(gemm(strided, uncounted, 96, channelsLast, emulated).kernel == m96);
  CHECK(gemm(grouped, uncounted, 96, channelsLast, emulated).kernel == m96);
  CHECK(gemm(one, uncounted, 96, channelsLast, nv).kernel == "convolution_integer_coopmat_nv_m96_n128_i32_packed");
  CHECK(gemm(one, h200, 0, channelsLast, nv).kernel == "convolution_integer_coopmat_nv_m96_n128_i32_packed");
  // VKDML_COOPMAT_ROWS takes 64, 96 or 128 alone.
  for (const char* wrong : {"32", "96 ", "auto"}) test::expectRefusedAtDeviceCreation("VKDML_COOPMAT_ROWS", wrong);
}

// Tiles of 64 rows (the _w4_m64_n64 variants) where 4 warps take tiles of
// 64 columns with A gathered (nothing packed, K not split): where the
// device counts its multiprocessors, if they take no more waves than tiles
// of 128 rows; with $VKDML_COOPMAT_ROWS=64 wherever they apply, with 96 or
// 128 nowhere. (Their results: "convolution_integer: tiles of 64 rows".)
TEST_CASE("convolution plan: tiles of 64 rows") {
  const vkdml::DeviceInfo h200 = withMultiprocessors(fullDevice(), 132), uncounted = fullDevice();
  // ResNet-50's layer3 1x1 256->1024 14x14 at batch 1: 196 rows in 2 x 16
  // tiles of 128 rows, 4 x 16 of 64 (one wave of 132 either way).
  const SameConv layer3(1, 256, 1024, 14, 14, 1);
  Gemm g = gemm(layer3, h200, 0);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_w4_m64_n64_i32");
  CHECK(g.workgroups == 64);
  const vkdml::DeviceInfo khr = withKhr(h200);
  CHECK(gemm(layer3, khr, 0, vkdml::ConvolutionPacking::Auto, vkdml::ConvolutionPath::CooperativeMatrixKHR).kernel ==
        "convolution_integer_coopmat_khr_w4_m64_n64_i32");
  // 48 multiprocessors: 32 tiles take one wave, 64 two. None counted.
  g = gemm(layer3, withMultiprocessors(fullDevice(), 48), 0);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_w4_n64_i32");
  CHECK(g.workgroups == 32);
  CHECK(gemm(layer3, uncounted, 0).kernel == "convolution_integer_coopmat_nv_w4_n64_i32");
  // Forced either way.
  CHECK(gemm(layer3, h200, 128).kernel == "convolution_integer_coopmat_nv_w4_n64_i32");
  CHECK(gemm(layer3, h200, 96).kernel == "convolution_integer_coopmat_nv_w4_n64_i32");
  g = gemm(layer3, uncounted, 64);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_w4_m64_n64_i32");
  CHECK(g.workgroups == 64);
  // ResNet-50's layer1 1x1 256->64 56x56 at batch 32: 784 tiles of 128
  // rows (6 waves), 1568 of 64 (12): 128.
  CHECK(gemm(SameConv(32, 256, 64, 56, 56, 1), h200, 0).kernel == "convolution_integer_coopmat_nv_w4_n64_i32");
  // Where A is gathered over 8-warp tiles of 128 columns, 64 columns on 4
  // warps first if those tiles take no more waves: ResNet-50's layer2 1x1
  // 256->128 56x56 at batch 1 (3136 rows, 25 tiles of 128 x 128, 98 of 64 x
  // 64); not at batch 32 (layer2 1x1 512->128 28x28: 196 tiles of 128 x
  // 128, two waves, against 784 of 64 x 64, six), nor where the device
  // does not count its multiprocessors or the rows are forced.
  const SameConv layer2(1, 256, 128, 56, 56, 1);
  g = gemm(layer2, h200, 0);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_w4_m64_n64_i32");
  CHECK(g.workgroups == 98);
  CHECK(gemm(layer2, uncounted, 0).kernel == "convolution_integer_coopmat_nv_n128_i32");
  CHECK(gemm(layer2, h200, 128).kernel == "convolution_integer_coopmat_nv_n128_i32");
  CHECK(gemm(SameConv(32, 512, 128, 28, 28, 1), h200, 0).kernel == "convolution_integer_coopmat_nv_n128_i32");
  // Where K splits across the grid too, in place of the 8-warp tiles of 128
  // x 64: layer3 1x1 1024->256 14x14 at batch 1, 16 tiles of 64 x 64 (8 of
  // 128 x 64), each over chunks of K.
  const SameConv split(1, 1024, 256, 14, 14, 1);
  const std::vector<Dispatch> splitPlan = planOn(split, h200);
  CHECK(std::string(kernelName(splitPlan.back().kernel)) == "convolution_integer_coopmat_nv_w4_m64_n64_i32");
  CHECK(splitPlan.back().groups[0] == 16);
  CHECK(splitPlan.back().groups[1] == 16);
  CHECK(gemm(split, uncounted, 0).kernel == "convolution_integer_coopmat_nv_n64_i32");
  // Not where A is packed.
  CHECK(gemm(layer3, h200, 64, vkdml::ConvolutionPacking::Both).kernel.find("_m64") == std::string::npos);
  // The emulated variant, where forced (the shapes of the results test:
  // 196 rows, 1x1 over 6 x 6 images, 3x3 with padding, stride 2, and 49
  // rows of 16 K steps, split).
  const auto emulated = vkdml::ConvolutionPath::CooperativeMatrixEmulated;
  const auto none = vkdml::ConvolutionPacking::None;
  vkdml::detail::PlanDefaults rows64;
  rows64.coopmatRows = 64;
  const std::string m64 = "convolution_integer_coopmat_emulated_w4_m64_n64_i32";
  CHECK(gemm(SameConv(1, 64, 100, 14, 14, 1), uncounted, 64, none, emulated).kernel == m64);
  CHECK(gemm(SameConv(3, 40, 60, 6, 6, 1), uncounted, 64, none, emulated).kernel == m64);
  CHECK(gemm(SameConv(1, 32, 48, 12, 20, 3), uncounted, 64, none, emulated).kernel == m64);
  CHECK(gemm(PaddedConv(32, 48, 15, 3, 1, 1), uncounted, 64, none, emulated).kernel == m64);
  CHECK(gemm(PaddedConv(64, 64, 28, 1, 2, 0), uncounted, 64, none, emulated).kernel == m64);
  const std::vector<Dispatch> deep = planOn(SameConv(1, 512, 100, 7, 7, 1), uncounted, none, emulated, rows64);
  CHECK(kernelName(deep.back().kernel) == m64);
  CHECK(deep.back().groups[1] > 1);  // K split across the grid
}

// The same tiles where A comes channels-last (the _w4_m64_n64 _packed
// variants): ResNet-50's batch-1 3x3 layers, K split across the grid; the
// packings that a device counting its multiprocessors takes for them.
// Not at batch 32, nor where the pack lays A in blocks of 128 rows (the
// im2col matrix). (Their results: "convolution_integer: tiles of 64 rows,
// A channels-last".)
TEST_CASE("convolution plan: tiles of 64 rows, A channels-last") {
  const vkdml::DeviceInfo h200 = withMultiprocessors(fullDevice(), 132), uncounted = fullDevice();
  const auto channelsLast = vkdml::ConvolutionPacking::ChannelsLast;
  const std::string m64 = "convolution_integer_coopmat_nv_w4_m64_n64_i32_packed";
  // layer3 3x3 256->256 14x14: 196 rows, 4 x 4 tiles of 64 x 64 (2 x 4 of
  // 128 x 64), each over chunks of K.
  const SameConv layer3(1, 256, 256, 14, 14, 3);
  std::vector<Dispatch> plan = planOn(layer3, h200);
  CHECK(std::string(kernelName(plan.back().kernel)) == m64);
  CHECK(plan.back().groups[0] == 16);
  CHECK(plan.back().groups[1] > 1);
  CHECK(gemm(layer3, withKhr(h200), 0, vkdml::ConvolutionPacking::Auto, vkdml::ConvolutionPath::CooperativeMatrixKHR)
            .kernel == "convolution_integer_coopmat_khr_w4_m64_n64_i32_packed");
  CHECK(gemm(layer3, uncounted, 0).kernel == "convolution_integer_coopmat_nv_n64_i32_packed");
  CHECK(gemm(layer3, h200, 128).kernel == "convolution_integer_coopmat_nv_n64_i32_packed");
  CHECK(gemm(layer3, uncounted, 64).kernel == m64);
  // layer1 3x3 64->64 56x56: 3136 rows, 49 tiles of 64 x 64 (25 of 128 x 64).
  plan = planOn(SameConv(1, 64, 64, 56, 56, 3), h200);
  CHECK(std::string(kernelName(plan.back().kernel)) == m64);
  CHECK(plan.back().groups[0] == 49);
  // Where the device counts its multiprocessors, A comes channels-last for
  // such kernels of few rows too: layer2 3x3 128->128 28x28 (784 rows, else
  // gathered) and layer4 3x3 512->512 7x7 (49 rows, else the im2col matrix,
  // which the 64-row tiles do not take).
  const SameConv layer2(1, 128, 128, 28, 28, 3), layer4(1, 512, 512, 7, 7, 3);
  CHECK(gemm(layer2, h200, 0).kernel == m64);
  CHECK(gemm(layer4, h200, 0).kernel == m64);
  CHECK(gemm(layer2, uncounted, 0).kernel == "convolution_integer_coopmat_nv_n128_i32");
  CHECK(gemm(layer2, h200, 128).kernel == "convolution_integer_coopmat_nv_n128_i32");  // forced: as uncounted
  CHECK(gemm(layer4, uncounted, 0).kernel == "convolution_integer_coopmat_nv_n64_i32_packed");
  CHECK(gemm(layer4, h200, 128).kernel == "convolution_integer_coopmat_nv_n64_i32_packed");
  // And 1x1 kernels over few rows gather A even where its rows are byte
  // gathers: layer4 1x1 512->2048 7x7 (49 rows, else the im2col matrix).
  const SameConv pointwise(1, 512, 2048, 7, 7, 1);
  // K splits across the grid, and its chunks zero the output (no fill),
  // with a tile's counters in the binding table's memory; on a CPU device,
  // where a chunk may not wait on another, a fill zeroes it.
  plan = planOn(pointwise, h200);
  REQUIRE(plan.size() == 1);
  CHECK(std::string(kernelName(plan.back().kernel)) == "convolution_integer_coopmat_nv_w4_m64_n64_i32");
  vkdml::shader::ConvParams params{};
  REQUIRE(plan.back().params.size() == sizeof params);
  std::memcpy(&params, plan.back().params.data(), sizeof params);
  CHECK((params.flags & vkdml::shader::K_SPLIT_ZEROES) != 0);
  CHECK(params.tileCounters == vkdml::detail::tableCountersOffset(5));
  CHECK(plan.back().groups[1] > 1);
  CHECK(plan.back().tableCounterBytes == uint64_t(plan.back().groups[0]) * vkdml::shader::SPLIT_TILE_WORDS * 4);
  vkdml::DeviceInfo cpu = h200;
  cpu.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  plan = planOn(pointwise, cpu);
  REQUIRE(plan.size() == 2);
  CHECK(std::string(kernelName(plan.front().kernel)) == "fill");
  CHECK(plan.back().tableCounterBytes == 0);
  // $VKDML_SPLIT_ZEROS takes either on any device.
  vkdml::detail::PlanDefaults zeros;
  zeros.splitZeros = vkdml::detail::PlanDefaults::SplitZeros::Fill;
  CHECK(planOn(pointwise, h200, vkdml::ConvolutionPacking::Auto, vkdml::ConvolutionPath::CooperativeMatrix, zeros)
            .size() == 2);
  zeros.splitZeros = vkdml::detail::PlanDefaults::SplitZeros::Chunks;
  plan = planOn(pointwise, cpu, vkdml::ConvolutionPacking::Auto, vkdml::ConvolutionPath::CooperativeMatrix, zeros);
  REQUIRE(plan.size() == 1);
  CHECK(plan.back().tableCounterBytes != 0);
  for (const char* wrong : {"0", "Fill", "chunk"}) test::expectRefusedAtDeviceCreation("VKDML_SPLIT_ZEROS", wrong);
  CHECK(gemm(pointwise, uncounted, 0).kernel == "convolution_integer_coopmat_nv_n64_i32_packed");
  CHECK(gemm(pointwise, h200, 96).kernel == "convolution_integer_coopmat_nv_n64_i32_packed");
  // An owned filter takes the plain filter's plan there, packing nothing (not even the filter,
  // which the initializer would pack once), as over batch 1's other 1x1 layers of K 128 or more:
  // layer2 1x1 256->128 56x56 (3136 rows) and layer4 1x1 1024->512 14x14. Where the tiles of 64
  // rows are out of reach, it keeps the packing measured for it (the im2col matrix here).
  SameConv ownedPointwise(1, 512, 2048, 7, 7, 1), owned56(1, 256, 128, 56, 56, 1), owned14(1, 1024, 512, 14, 14, 1);
  for (SameConv* c : {&ownedPointwise, &owned56, &owned14}) {
    c->filter.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    const std::vector<Dispatch> owned = planOn(*c, h200);
    CHECK(owned.size() == 1);
    CHECK(std::string(kernelName(owned.back().kernel)) == "convolution_integer_coopmat_nv_w4_m64_n64_i32");
  }
  CHECK(gemm(ownedPointwise, uncounted, 0).kernel == "convolution_integer_coopmat_nv_n64_i32_packed");
  CHECK(gemm(SameConv(32, 512, 2048, 7, 7, 1), h200, 0).kernel.find("_packed") != std::string::npos);
  // At batch 32 (784 tiles of 128 rows, 6 waves; 1568 of 64, 12): 128.
  CHECK(gemm(SameConv(32, 64, 64, 56, 56, 3), h200, 0).kernel == "convolution_integer_coopmat_nv_w4_n64_i32_packed");
  // The im2col matrix (packing Both) keeps its 128-row blocks, forced or not.
  CHECK(gemm(layer3, h200, 64, vkdml::ConvolutionPacking::Both).kernel.find("_m64") == std::string::npos);
  // The emulated variant, where forced (the shapes of the results test).
  const auto emulated = vkdml::ConvolutionPath::CooperativeMatrixEmulated;
  const std::string emulatedM64 = "convolution_integer_coopmat_emulated_w4_m64_n64_i32_packed";
  CHECK(gemm(SameConv(1, 32, 48, 20, 55, 3), uncounted, 64, channelsLast, emulated).kernel == emulatedM64);
  CHECK(gemm(SameConv(2, 64, 64, 9, 9, 3), uncounted, 64, channelsLast, emulated).kernel == emulatedM64);
  CHECK(gemm(PaddedConv(32, 40, 30, 3, 2, 1), uncounted, 64, channelsLast, emulated).kernel == emulatedM64);
  CHECK(gemm(PaddedConv(64, 64, 10, 3, 1, 1, 2), uncounted, 64, channelsLast, emulated).kernel == emulatedM64);
  vkdml::detail::PlanDefaults rows64;
  rows64.coopmatRows = 64;
  const std::vector<Dispatch> deep = planOn(SameConv(1, 256, 60, 7, 7, 3), uncounted, channelsLast, emulated, rows64);
  CHECK(kernelName(deep.back().kernel) == emulatedM64);
  CHECK(deep.back().groups[1] > 1);  // K split across the grid
}
