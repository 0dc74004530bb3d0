// Which cooperative-matrix variant a plan takes for the warps per
// workgroup (runtime/ops/convolution_integer_plan.cpp): the 16-warp tiles of
// 256 x 128 where the 8-warp ones would be 128 wide, K is not split, and A
// comes channels-last or gathered over many tiles; never on a device whose
// workgroups stop short of 512 invocations or whose shared memory is short
// of their 43008 bytes (lavapipe's 32 KiB). (The results of those plans:
// "convolution_integer: 16-warp tiles" in convolution_integer_test.cpp.)
#include "planning.hpp"

using namespace test::planning;

namespace {

// One image.
struct Conv2d : SameConv {
  Conv2d(UINT c, UINT oc, UINT h, UINT w, UINT k) : SameConv(1, c, oc, h, w, k) {}
};

// The GEMM's kernel (the last dispatch) and its workgroups along x.
struct Gemm {
  std::string kernel;
  uint32_t workgroups = 0;
};
Gemm planGemm(const Conv2d& c, const vkdml::DeviceInfo& device, vkdml::ConvolutionPacking packing) {
  const vkdml::Operator op = test::device().createOperator(c.desc());
  vkdml::CompileOptions options;
  options.convolutionPath = vkdml::ConvolutionPath::CooperativeMatrix;
  options.convolutionPacking = packing;
  const std::vector<Dispatch> dispatches = vkdml::detail::Access::plan(op).plan(device, options, {});
  REQUIRE_FALSE(dispatches.empty());
  return {kernelName(dispatches.back().kernel), dispatches.back().groups[0]};
}

}  // namespace

TEST_CASE("convolution plan: 16-warp tiles") {
  const vkdml::DeviceInfo gpu = fullDevice();
  const auto none = vkdml::ConvolutionPacking::None, channelsLast = vkdml::ConvolutionPacking::ChannelsLast;
  // 100 output channels over 72 x 72 pixels, A channels-last: 21 tiles of 256 rows.
  const Conv2d packed(64, 100, 72, 72, 3);
  Gemm g = planGemm(packed, gpu, channelsLast);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_w16_n128_i32_packed");
  CHECK(g.workgroups == 21);
  // A gathered: 523 tiles of 8 warps take 262 of 16; 196 keep 8 warps.
  const Conv2d many(16, 100, 257, 260, 1), fewer(16, 100, 112, 224, 1);
  g = planGemm(many, gpu, none);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_w16_n128_i32");
  CHECK(g.workgroups == 262);
  CHECK(planGemm(fewer, gpu, none).kernel == "convolution_integer_coopmat_nv_n128_i32");
  // Tiles of 256 columns (162 of them) keep 8 warps.
  CHECK(planGemm(Conv2d(64, 200, 144, 144, 3), gpu, channelsLast).kernel ==
        "convolution_integer_coopmat_nv_n256_i32_packed");
  // Workgroups of at most 256 invocations: 8 warps.
  vkdml::DeviceInfo small = gpu;
  small.maxComputeWorkGroupSizeX = 256;
  CHECK(planGemm(packed, small, channelsLast).kernel == "convolution_integer_coopmat_nv_n128_i32_packed");
  CHECK(planGemm(many, small, none).kernel == "convolution_integer_coopmat_nv_n128_i32");
  // 32 KiB of shared memory: 8 warps of 128 columns.
  vkdml::DeviceInfo lavapipeLike = gpu;
  lavapipeLike.maxComputeSharedMemorySize = 32768;
  CHECK(planGemm(packed, lavapipeLike, channelsLast).kernel == "convolution_integer_coopmat_nv_n128_i32_packed");
}
