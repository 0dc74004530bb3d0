// Which cooperative-matrix variant a plan takes for the warps per
// workgroup (runtime/ops/convolution_integer_plan.cpp): the 16-warp tiles of
// 256 x 128 where the 8-warp ones would be 128 wide, K is not split, and A
// comes channels-last or gathered over many tiles; never on a device whose
// workgroups stop short of 512 invocations or whose shared memory is short
// of their 43008 bytes (lavapipe's 32 KiB). (The results of those plans:
// "convolution_integer: 16-warp tiles" in convolution_integer_test.cpp.)
// And the warps on tiles narrower than 256 columns.
#include <algorithm>
#include <cstring>
#include <tuple>

#include "interface/convolution_integer.h"  // the pack's specialization constants
#include "planning.hpp"

using namespace test::planning;

namespace {

// One image.
struct Conv2d : SameConv {
  Conv2d(UINT c, UINT oc, UINT h, UINT w, UINT k) : SameConv(1, c, oc, h, w, k) {}
};

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

// The warps on tiles narrower than 256 columns: 8 on 128 columns (where the
// 256-column tiles are few), 4 on 64 unless K splits across the grid, then
// 8 (the _n64 variants).
TEST_CASE("convolution plan: 8 warps on narrower tiles, 4 on unsplit 64-column ones") {
  const vkdml::DeviceInfo gpu = fullDevice();
  const auto none = vkdml::ConvolutionPacking::None;
  // 6272 rows, 256 columns, 32 K steps: 49 tiles of 256 columns make 98 of 128.
  Gemm g = planGemm(Conv2d(1024, 256, 56, 112, 1), gpu, none);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_n128_i32");
  CHECK(g.workgroups == 98);
  // 49 rows, 512 columns, 64 K steps: 8 tiles of 64 columns, K split.
  g = planGemm(Conv2d(2048, 512, 7, 7, 1), gpu, none);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_n64_i32");
  CHECK(g.workgroups == 8);
  // 196 rows, 1024 columns, 8 K steps: 32 tiles of 64 columns, not split.
  g = planGemm(Conv2d(256, 1024, 14, 14, 1), gpu, none);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_w4_n64_i32");
  CHECK(g.workgroups == 32);
  // 64 output channels take tiles of 64 columns even where the 128-column
  // plan would split K: 3136 rows, 18 K steps, A packed, 25 tiles.
  g = planGemm(Conv2d(64, 64, 56, 56, 3), gpu, vkdml::ConvolutionPacking::Both);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_n64_i32_packed");
  CHECK(g.workgroups == 25);
}

// The wide K split (more than 8 tiles, more than 1024 rows) where the device
// counts its multiprocessors: the chunks (of 8 steps or more) of the least
// waves x (18 + steps per chunk), one workgroup per multiprocessor; elsewhere
// chunks for about 256 workgroups (runtime/ops/convolution_integer_plan.hpp,
// kSplitWaveSteps).
TEST_CASE("convolution plan: the wide K split by waves of multiprocessors") {
  // ResNet-50's 3x3 512->512 7x7 and 1x1 2048->512 7x7 at batch 32: 1568
  // rows, 26 tiles of 128 x 256, 144 and 64 K steps.
  const SameConv deep(32, 512, 512, 7, 7, 3), shorter(32, 2048, 512, 7, 7, 1);
  auto grid = [](const SameConv& c, uint32_t multiprocessors) {
    const std::vector<Dispatch> dispatches = planOn(c, withMultiprocessors(fullDevice(), multiprocessors));
    INFO(multiprocessors << " multiprocessors, " << kernelName(dispatches.back().kernel));
    return std::vector<uint32_t>{dispatches.back().groups[0], dispatches.back().groups[1]};
  };
  using Groups = std::vector<uint32_t>;
  CHECK(grid(deep, 0) == Groups{26, 9});    // 16 steps each, 234 workgroups
  CHECK(grid(deep, 132) == Groups{26, 5});  // 29 steps each, 130 workgroups: one wave
  CHECK(grid(deep, 24) == Groups{26, 3});   // 48 steps each, 4 waves of 24: 4 x 66 beats 3 x 90 and 5 x 54
  // At least 16 steps a chunk for 256 workgroups, 8 by waves: 13 steps each, one wave.
  CHECK(grid(shorter, 0) == Groups{26, 4});
  CHECK(grid(shorter, 132) == Groups{26, 5});
}

// Where the device counts its multiprocessors: 128 columns where tiles of
// 256 span two column tiles or more and those of 128 take fewer than twice
// their waves (one workgroup per multiprocessor).
TEST_CASE("convolution plan: 128 columns where 256 would leave the last wave idle") {
  auto gemm = [](const SameConv& c, uint32_t multiprocessors) {
    return planGemm(c, withMultiprocessors(fullDevice(), multiprocessors), vkdml::ConvolutionPacking::None);
  };
  // ResNet-50's layer3 1x1 256->1024 14x14 at batch 32: 6272 rows, 196
  // tiles of 256 columns (2 waves of 132), 392 of 128 (3 waves).
  const SameConv wide(32, 256, 1024, 14, 14, 1);
  Gemm g = gemm(wide, 132);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_n128_i32");
  CHECK(g.workgroups == 392);
  g = gemm(wide, 0);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_n256_i32");
  CHECK(g.workgroups == 196);
  // On 98 multiprocessors 196 tiles fill 2 waves, and 392 take 4.
  CHECK(gemm(wide, 98).kernel == "convolution_integer_coopmat_nv_n256_i32");
  // 98 tiles (1 wave) against 196 (2): 256 columns.
  CHECK(gemm(SameConv(32, 1024, 512, 14, 14, 1), 132).kernel == "convolution_integer_coopmat_nv_n256_i32");
  // One column tile of 256 (layer3 1x1 512->256 28x28): 256 columns.
  CHECK(gemm(SameConv(32, 512, 256, 28, 28, 1), 132).kernel == "convolution_integer_coopmat_nv_n256_i32");
}

namespace {

// `c`'s plan through `packing`.
std::vector<Dispatch> planPacked(const PaddedConv& c, vkdml::ConvolutionPacking packing) {
  const vkdml::Operator op = test::device().createOperator(c.desc());
  vkdml::CompileOptions options;
  options.convolutionPath = vkdml::ConvolutionPath::CooperativeMatrix;
  options.convolutionPacking = packing;
  return vkdml::detail::Access::plan(op).plan(fullDevice(), options, {});
}

// The GEMM's dispatch (the last) of `c`'s plan through `packing`.
Dispatch gemmDispatch(const PaddedConv& c, vkdml::ConvolutionPacking packing) {
  const std::vector<Dispatch> dispatches = planPacked(c, packing);
  REQUIRE_FALSE(dispatches.empty());
  return dispatches.back();
}

bool samePipeline(const Dispatch& a, const Dispatch& b) {
  return a.kernel == b.kernel && a.specialization == b.specialization;
}

}  // namespace

// Where A comes in scratch the GEMM reads none of what the pack read
// (shader::GATHER_FLAGS) nor the geometry (channels-last A takes its taps'
// from ConvParams): layers that differ only there share the GEMM's
// pipeline. Gathered, they do not: the geometry folds into the staging.
TEST_CASE("convolution plan: GEMMs with A in scratch share pipelines across geometries") {
  const auto none = vkdml::ConvolutionPacking::None, both = vkdml::ConvolutionPacking::Both,
             channelsLast = vkdml::ConvolutionPacking::ChannelsLast;
  // 28 x 28 outputs, K = 576, 256 columns: 3x3 of 64 channels, padded, over
  // a larger input, or strided over a larger one still, or 1x1 of 576 channels.
  const PaddedConv padded(64, 256, 28, 3, 1, 1), unpadded(64, 256, 30, 3, 1, 0), strided(64, 256, 56, 3, 2, 1),
      pointwise(576, 256, 28, 1, 1, 0);
  for (const PaddedConv* other : {&unpadded, &strided, &pointwise}) {
    CHECK(samePipeline(gemmDispatch(padded, both), gemmDispatch(*other, both)));
    CHECK(samePipeline(gemmDispatch(padded, channelsLast), gemmDispatch(*other, channelsLast)));
    CHECK_FALSE(samePipeline(gemmDispatch(padded, none), gemmDispatch(*other, none)));
  }
  // The packings themselves stay apart.
  CHECK_FALSE(samePipeline(gemmDispatch(padded, both), gemmDispatch(padded, channelsLast)));
}

namespace {

// The channels-last pack's channels per tile (CHANNEL_RUN), its workgroup
// (twice a tile's pixels) and whether it reads the input's planes as words
// (its _words variant), for `desc` on `device`.
struct APack {
  uint32_t run = 0;
  uint32_t workgroup = 0;
  bool words = false;
};
APack aPack(const vkdml::DeviceInfo& device, const DML_OPERATOR_DESC& desc,
            vkdml::ConvolutionPacking packing = vkdml::ConvolutionPacking::ChannelsLast) {
  const vkdml::Operator op = test::device().createOperator(desc);
  vkdml::CompileOptions options;
  options.convolutionPath = vkdml::ConvolutionPath::CooperativeMatrix;
  options.convolutionPacking = packing;
  const std::vector<Dispatch> dispatches = vkdml::detail::Access::plan(op).plan(device, options, {});
  REQUIRE(dispatches.size() == 2);
  APack pack;
  pack.words = std::string(kernelName(dispatches.front().kernel)).find("_words_") != std::string::npos;
  // The ids of the pack's CHANNEL_RUN and WORKGROUP_SIZE, found by their values.
  vkdml::shader::ConvolutionIntegerPackConstants marked;
  marked.CHANNEL_RUN = 0xC0FFEE;
  marked.WORKGROUP_SIZE = 0xBEEF;
  for (const auto& [id, value] : vkdml::shader::specializationOf(marked))
    for (const auto& [packId, packValue] : dispatches.front().specialization) {
      if (packId == id && value == 0xC0FFEE) pack.run = packValue;
      if (packId == id && value == 0xBEEF) pack.workgroup = packValue;
    }
  return pack;
}

}  // namespace

// The channels-last pack reads whole words of the input's planes where H * W
// % 4 == 0, in tiles of 32 pixels x the most channels of 32, 64 and 128 that
// divide C and leave two tiles per multiprocessor (where the device counts
// them); otherwise byte by byte, 32 channels a tile. Its workgroup is two
// invocations per pixel of a tile.
TEST_CASE("convolution plan: the channels-last pack's tiles") {
  vkdml::DeviceInfo gpu = fullDevice();
  auto check = [&](const DML_OPERATOR_DESC& desc, uint32_t multiprocessors, uint32_t run, bool words) {
    gpu.multiprocessors = multiprocessors;
    const APack pack = aPack(gpu, desc);
    CHECK(pack.run == run);
    CHECK(pack.words == words);
    CHECK(pack.workgroup == 64);
  };
  // 56 x 56 (98 tiles of 32 pixels per image), 28 x 28 (25), 7 x 7 (49 pixels: bytes).
  const PaddedConv wide(128, 64, 56, 3, 2, 1), channels96(96, 64, 56, 3, 1, 1), oddPlane(128, 64, 7, 3, 1, 1);
  const SameConv batch32(32, 128, 128, 28, 28, 3), batch32Of64(32, 64, 64, 56, 56, 3);
  const SameConv batch6(6, 128, 128, 28, 28, 3);
  check(wide.desc(), 0, 128, true);
  check(wide.desc(), 132, 32, true);  // 98 tiles of 128 channels, 196 of 64: under 264
  check(channels96.desc(), 0, 32, true);
  check(oddPlane.desc(), 0, 32, false);
  check(batch32.desc(), 132, 128, true);  // 800 tiles of 128 channels
  check(batch6.desc(), 132, 64, true);    // 150 tiles of 128 channels, 300 of 64
  check(batch32Of64.desc(), 132, 64, true);
}

// The im2col matrix (packing ab) of a 1x1 kernel of stride 1 without padding
// is the input channels-last: the pack reads it as words too, where H * W %
// 4 == 0 and the groups are of whole K steps, in tiles of 32 channels (one
// block each). Strided, padded or of odd planes: 16-byte chunks of byte
// gathers.
TEST_CASE("convolution plan: the im2col matrix of a 1x1 kernel from words") {
  const vkdml::DeviceInfo gpu = fullDevice();
  const auto both = vkdml::ConvolutionPacking::Both;
  auto check = [&](const PaddedConv& c, uint32_t run, bool words) {
    const APack pack = aPack(gpu, c.desc(), both);
    CHECK(pack.words == words);
    CHECK(pack.workgroup == 256);  // tiles of 128 pixels: a block's rows
    if (words) CHECK(pack.run == run);
  };
  check(PaddedConv(256, 64, 12, 1, 1, 0), 32, true);
  check(PaddedConv(96, 64, 8, 1, 1, 0), 32, true);
  check(PaddedConv(128, 64, 6, 1, 1, 0, 2), 32, true);  // two groups of 64 channels
  check(PaddedConv(64, 64, 12, 1, 2, 0), 0, false);
  check(PaddedConv(64, 64, 12, 1, 1, 1), 0, false);
  check(PaddedConv(64, 64, 7, 1, 1, 0), 0, false);
  check(PaddedConv(96, 48, 8, 1, 1, 0, 6), 0, false);  // groups of 16 channels
  check(PaddedConv(64, 64, 12, 3, 1, 1), 0, false);    // 3x3
}

namespace {

// Where the GEMM of `c`'s plan takes B: from the filter itself
// (shader::B_FROM_FILTER), and whether the execution's pack packs B too.
struct BSource {
  bool fromFilter = false, packed = false;
  uint64_t scratchBytes = 0;
};
BSource bSource(const PaddedConv& c, vkdml::ConvolutionPacking packing) {
  const std::vector<Dispatch> dispatches = planPacked(c, packing);
  REQUIRE(dispatches.size() >= 2);
  auto params = [](const Dispatch& d) {
    vkdml::shader::ConvParams p{};
    REQUIRE(d.params.size() == sizeof p);
    std::memcpy(&p, d.params.data(), sizeof p);
    return p;
  };
  const auto pack =
      std::find_if(dispatches.begin(), dispatches.end(), [](const Dispatch& d) { return !d.initializer; });
  REQUIRE(pack != dispatches.end() - 1);
  const vkdml::shader::ConvParams packParams = params(*pack);
  return {(params(dispatches.back()).flags & vkdml::shader::B_FROM_FILTER) != 0,
          packParams.totalChunks > packParams.aChunks, dispatches.back().scratchBytes};
}

// The filter of `c` with its own strides (the tensor size follows them).
void setFilterStrides(PaddedConv& c, std::vector<UINT> strides) {
  c.filter.strides = std::move(strides);
  c.filter.buffer.Strides = c.filter.strides.data();
  c.filter.buffer.TotalTensorSizeInBytes =
      vkdmlCalcBufferTensorSize(c.filter.buffer.DataType, 4, c.filter.sizes.data(), c.filter.buffer.Strides);
}

}  // namespace

// Where A is the im2col matrix, its k run (c, ky, kx) as a dense filter's
// rows do: where those rows hold whole K steps from 16-byte aligned
// addresses, the filter is not owned and the m tiles are at most 2, the
// GEMM stages B from the filter and the pack packs A alone. Otherwise the
// pack packs B (an owned filter: the initializer does).
TEST_CASE("convolution plan: B from the filter itself where A is the im2col matrix") {
  const auto both = vkdml::ConvolutionPacking::Both, channelsLast = vkdml::ConvolutionPacking::ChannelsLast;
  auto check = [](const PaddedConv& c, vkdml::ConvolutionPacking packing, bool fromFilter, bool packed) {
    const BSource b = bSource(c, packing);
    CHECK(b.fromFilter == fromFilter);
    CHECK(b.packed == packed);
  };
  const PaddedConv dense(64, 64, 12, 3, 1, 1);
  check(dense, both, true, false);
  check(PaddedConv(64, 128, 12, 1, 2, 0), both, true, false);     // 1x1, stride 2
  check(PaddedConv(128, 64, 12, 3, 1, 1, 2), both, true, false);  // two groups of 64 channels
  check(PaddedConv(20, 64, 12, 3, 1, 1), both, false, true);      // K = 180: not whole steps
  check(dense, channelsLast, false, true);                        // k by tap
  check(PaddedConv(64, 64, 17, 3, 1, 1), both, false, true);      // 289 rows: 3 m tiles
  // Less scratch: A's blocks alone (12 x 12 rows: 2 m tiles, 18 K steps).
  CHECK(bSource(dense, both).scratchBytes == 2 * 18 * 128 * 32);

  PaddedConv owned(64, 64, 12, 3, 1, 1);
  owned.filter.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  check(owned, both, false, false);  // packed once, by the initializer
  PaddedConv unaligned(64, 64, 12, 3, 1, 1);
  unaligned.filter.buffer.GuaranteedBaseOffsetAlignment = 4;
  check(unaligned, both, false, true);
  PaddedConv rowsApart(64, 64, 12, 3, 1, 1), rowsOfWords(64, 64, 12, 3, 1, 1), tapsOuter(64, 64, 12, 3, 1, 1);
  setFilterStrides(rowsApart, {576 + 16, 9, 3, 1});
  check(rowsApart, both, true, false);
  setFilterStrides(rowsOfWords, {576 + 4, 9, 3, 1});
  check(rowsOfWords, both, false, true);
  setFilterStrides(tapsOuter, {576, 1, 192, 64});  // channels innermost: k not in (c, ky, kx) order
  check(tapsOuter, both, false, true);
}

// An owned filter, which the initializer packs once, is packed where Auto
// would otherwise pack nothing (from a K of 128), except for GEMMs of at
// most 128 columns over 512 m tiles or more, which keep the gathered plan's
// 16-warp (or 4-warp) tiles, and (on a device that counts its
// multiprocessors, unlike this one) over few rows where the 64 x 64 tiles
// are in reach ("tiles of 64 rows, A channels-last").
TEST_CASE("convolution plan: an owned filter over many narrow tiles stays unpacked") {
  auto gemmKernel = [](UINT n, UINT c, UINT oc, UINT hw, bool owned) {
    SameConv conv(n, c, oc, hw, hw, 1);
    if (owned) conv.filter.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    return std::string(kernelName(planOn(conv, fullDevice()).back().kernel));
  };
  // 784 m tiles of 128 rows (32 images of 56 x 56).
  CHECK(gemmKernel(32, 256, 128, 56, true) == "convolution_integer_coopmat_nv_w16_n128_i32");
  CHECK(gemmKernel(32, 256, 128, 56, false) == "convolution_integer_coopmat_nv_w16_n128_i32");
  CHECK(gemmKernel(32, 256, 64, 56, true) == "convolution_integer_coopmat_nv_w4_n64_i32");
  // 256 columns, or 25 m tiles: packed by the initializer.
  CHECK(gemmKernel(32, 256, 256, 56, true) == "convolution_integer_coopmat_nv_n256_i32_packed_p3");
  CHECK(gemmKernel(1, 256, 128, 56, true).find("_packed") != std::string::npos);
}

// Two K steps a shared row (shader::K_PAIRED_ROWS) where A comes in scratch,
// K is not split across the grid and the device's shared memory holds them:
// on 8-warp tiles of 128 columns, and through the emulated path on any
// tile (32 KiB of shared memory: on 64 columns).
TEST_CASE("convolution plan: two K steps a shared row") {
  struct Gemm2 {
    std::string kernel;
    bool pairedRows = false;
    Dispatch pack;  // the first dispatch
  };
  auto plan = [](const SameConv& c, const vkdml::DeviceInfo& device, vkdml::ConvolutionPath path,
                 vkdml::ConvolutionPacking packing) {
    const std::vector<Dispatch> dispatches = planOn(c, device, packing, path);
    vkdml::shader::ConvParams p{};
    REQUIRE(dispatches.back().params.size() == sizeof p);
    std::memcpy(&p, dispatches.back().params.data(), sizeof p);
    return Gemm2{kernelName(dispatches.back().kernel), (p.flags & vkdml::shader::K_PAIRED_ROWS) != 0, dispatches[0]};
  };
  const auto nv = vkdml::ConvolutionPath::CooperativeMatrix,
             emulated = vkdml::ConvolutionPath::CooperativeMatrixEmulated;
  const auto nhwc = vkdml::ConvolutionPacking::ChannelsLast, both = vkdml::ConvolutionPacking::Both,
             none = vkdml::ConvolutionPacking::None;
  const vkdml::DeviceInfo gpu = fullDevice();
  vkdml::DeviceInfo small = gpu;
  small.maxComputeSharedMemorySize = 32768;
  // ResNet-50's layer3 3x3 256->256 14x14 at batch 32: 49 x 2 tiles of 128 x 128, 72 K steps.
  const SameConv layer3(32, 256, 256, 14, 14, 3);
  Gemm2 g = plan(layer3, gpu, nv, nhwc);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_n128_i32_packed");
  CHECK(g.pairedRows);
  CHECK(plan(layer3, gpu, nv, both).pairedRows);
  CHECK_FALSE(plan(layer3, gpu, nv, none).pairedRows);   // A gathered
  const Gemm2 unpaired = plan(layer3, small, nv, nhwc);  // 42496 bytes do not fit 32 KiB
  CHECK(unpaired.kernel == "convolution_integer_coopmat_nv_n128_i32_packed");
  CHECK_FALSE(unpaired.pairedRows);
  // The pack's pipeline is the same either way (the flag is the GEMM's alone).
  CHECK(kernelName(g.pack.kernel) == kernelName(unpaired.pack.kernel));
  CHECK(g.pack.specialization == unpaired.pack.specialization);
  // 256 columns.
  g = plan(SameConv(32, 256, 512, 28, 28, 3), gpu, nv, nhwc);
  CHECK(g.kernel == "convolution_integer_coopmat_nv_n256_i32_packed");
  CHECK_FALSE(g.pairedRows);
  // 64 columns: not through coopmat; through the emulated path, where they fit.
  const SameConv narrow(32, 64, 64, 14, 14, 3);
  g = plan(narrow, gpu, nv, both);
  CHECK(g.kernel.find("_n64_i32_packed") != std::string::npos);
  CHECK_FALSE(g.pairedRows);
  g = plan(narrow, small, emulated, both);
  CHECK(g.kernel.find("_n64_i32_packed") != std::string::npos);
  CHECK(g.pairedRows);
  CHECK(vkdml::shader::coopmatSharedBytes(8, 64, true) <= 32768);
  CHECK(vkdml::shader::coopmatSharedBytes(8, 128, true) == 42496);
  // K split across the grid (the 3x3 512->512 7x7 layer: 26 tiles, 144 K steps).
  CHECK_FALSE(plan(SameConv(32, 512, 512, 7, 7, 3), gpu, nv, both).pairedRows);
}

// Unpadded rows on 4-warp tiles (shader::ROWS_UNPADDED) where the device
// counts its multiprocessors and the grid gives each more than two
// workgroups; through the emulated path on every 4-warp tile.
TEST_CASE("convolution plan: unpadded rows on 4-warp tiles") {
  auto plan = [](const SameConv& c, const vkdml::DeviceInfo& device, vkdml::ConvolutionPath path) {
    const std::vector<Dispatch> dispatches = planOn(c, device, vkdml::ConvolutionPacking::Auto, path);
    vkdml::shader::ConvParams p{};
    REQUIRE(dispatches.back().params.size() == sizeof p);
    std::memcpy(&p, dispatches.back().params.data(), sizeof p);
    return std::make_pair(std::string(kernelName(dispatches.back().kernel)),
                          (p.flags & vkdml::shader::ROWS_UNPADDED) != 0);
  };
  const auto nv = vkdml::ConvolutionPath::CooperativeMatrix,
             emulated = vkdml::ConvolutionPath::CooperativeMatrixEmulated;
  const vkdml::DeviceInfo h200 = withMultiprocessors(fullDevice(), 132), uncounted = fullDevice();
  // ResNet-50's layer1 1x1 256->64 56x56 at batch 32: 784 tiles of 128 x 64 on 4 warps, over 132 SMs.
  const SameConv layer1(32, 256, 64, 56, 56, 1);
  auto [kernel, unpadded] = plan(layer1, h200, nv);
  CHECK(kernel == "convolution_integer_coopmat_nv_w4_n64_i32");
  CHECK(unpadded);
  CHECK_FALSE(plan(layer1, uncounted, nv).second);
  // 784 tiles over 392 SMs: two per SM.
  std::tie(kernel, unpadded) = plan(layer1, withMultiprocessors(fullDevice(), 392), nv);
  CHECK(kernel == "convolution_integer_coopmat_nv_w4_n64_i32");
  CHECK_FALSE(unpadded);
  // Batch 1: 49 tiles of 64 x 64.
  const SameConv batch1(1, 256, 64, 56, 56, 1);
  std::tie(kernel, unpadded) = plan(batch1, h200, nv);
  CHECK(kernel == "convolution_integer_coopmat_nv_w4_m64_n64_i32");
  CHECK_FALSE(unpadded);
  // 8 warps: ResNet-50's layer1 1x1 64->256 56x56 at batch 32.
  std::tie(kernel, unpadded) = plan(SameConv(32, 64, 256, 56, 56, 1), h200, nv);
  CHECK(kernel.find("_w4_") == std::string::npos);
  CHECK_FALSE(unpadded);
  // Emulated: every 4-warp tile, counted or not.
  std::tie(kernel, unpadded) = plan(batch1, uncounted, emulated);
  CHECK(kernel.find("_w4_") != std::string::npos);
  CHECK(unpadded);
}

// Auto's packing for a 3x3 kernel over a deep K: the input channels-last
// over more than one tile of rows (128), both (the im2col matrix) over
// fewer; A gathered where few rows take 16 to 72 K steps into at most 128
// channels. With an owned filter, channels-last (bench/results/owned_weights.md).
TEST_CASE("convolution plan: Auto packs the input channels-last over more than one tile of rows") {
  const vkdml::DeviceInfo gpu = fullDevice();
  auto aPacking = [&](const SameConv& c) {
    const std::vector<Dispatch> dispatches = planOn(c, gpu);
    for (const auto& [id, value] : dispatches.back().specialization)
      if (id == 10) return value;  // A_PACKING (VKDML_CONVOLUTION_INTEGER_COOPMAT_CONSTANTS)
    return vkdml::shader::A_GATHERED;
  };
  CHECK(aPacking(SameConv(1, 256, 256, 14, 14, 3)) == vkdml::shader::A_CHANNELS_LAST);  // 196 rows
  CHECK(aPacking(SameConv(1, 256, 256, 12, 12, 3)) == vkdml::shader::A_CHANNELS_LAST);  // 144
  CHECK(aPacking(SameConv(1, 256, 256, 8, 16, 3)) == vkdml::shader::A_IM2COL);          // 128
  CHECK(aPacking(SameConv(1, 512, 512, 7, 7, 3)) == vkdml::shader::A_IM2COL);           // 49
  CHECK(aPacking(SameConv(32, 256, 256, 14, 14, 3)) == vkdml::shader::A_CHANNELS_LAST);
  CHECK(aPacking(SameConv(1, 128, 128, 28, 28, 3)) == vkdml::shader::A_GATHERED);  // 784 rows, 36 steps
  // An owned filter costs the pack nothing: channels-last for any rows, but not for 1x1 kernels.
  SameConv owned7(1, 512, 512, 7, 7, 3), owned28(1, 128, 128, 28, 28, 3), owned1x1(1, 256, 256, 28, 28, 1);
  for (SameConv* c : {&owned7, &owned28, &owned1x1}) c->filter.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  CHECK(aPacking(owned7) == vkdml::shader::A_CHANNELS_LAST);
  CHECK(aPacking(owned28) == vkdml::shader::A_CHANNELS_LAST);
  CHECK(aPacking(owned1x1) == vkdml::shader::A_GATHERED);
}

// A 1x1 kernel of stride 2 without padding (a ResNet's downsampling layer)
// over n x c x h x w, the output's width `ow` (end padding where it passes
// w / 2).
struct Down {
  Desc input, filter, output;
  UINT twos[2] = {2, 2}, ones[2] = {1, 1}, zeros[2] = {0, 0}, endPadding[2] = {0, 0};
  DML_CONVOLUTION_INTEGER_OPERATOR_DESC conv{};
  Down(UINT n, UINT c, UINT oc, UINT h, UINT w, UINT ow)
      : input(DML_TENSOR_DATA_TYPE_UINT8, {n, c, h, w}),
        filter(DML_TENSOR_DATA_TYPE_INT8, {oc, c, 1, 1}),
        output(DML_TENSOR_DATA_TYPE_INT32, {n, oc, (h + 1) / 2, ow}) {
    endPadding[1] = 2 * ow > w ? 2 * ow - w : 0;
    conv = {&input.tensor, nullptr, &filter.tensor, nullptr, &output.tensor, 2, twos, ones, zeros, endPadding, 1};
  }
};

// Where a quad's 4 pixels are the even bytes of 8 inside a row of whole
// words, the GEMM gathers A (INPUT_ROWS_STRIDE2) and Auto packs nothing.
TEST_CASE("convolution plan: a 1x1 kernel of stride 2 gathers A from words") {
  const vkdml::DeviceInfo gpu = withMultiprocessors(fullDevice(), 132);
  auto gemm = [&](const Down& c) {
    const vkdml::Operator op = test::device().createOperator({DML_OPERATOR_CONVOLUTION_INTEGER, &c.conv});
    vkdml::CompileOptions options;
    options.convolutionPath = vkdml::ConvolutionPath::CooperativeMatrix;
    const std::vector<Dispatch> dispatches = vkdml::detail::Access::plan(op).plan(gpu, options, {});
    REQUIRE_FALSE(dispatches.empty());
    uint32_t flags = 0;
    for (const auto& [id, value] : dispatches.back().specialization)
      if (id == 9) flags = value;  // FLAGS (VKDML_CONVOLUTION_GEOMETRY)
    return std::make_pair(dispatches.size(), (flags & vkdml::shader::INPUT_ROWS_STRIDE2) != 0);
  };
  // ResNet-50's layer2 down at batch 32 and 1: the GEMM alone.
  CHECK(gemm(Down(32, 256, 512, 56, 56, 28)) == std::make_pair(size_t(1), true));
  CHECK(gemm(Down(1, 256, 512, 56, 56, 28)) == std::make_pair(size_t(1), true));
  // Output rows of 14 (no whole quads), and quads past the row (end
  // padding): byte gathers, so A is packed; but not over at most two tiles
  // of 128 rows, where the 64 x 64 tiles gather them (layer3 down at batch
  // 1, 196 rows).
  CHECK(gemm(Down(32, 512, 1024, 28, 28, 14)) == std::make_pair(size_t(2), false));
  CHECK(gemm(Down(32, 256, 512, 56, 12, 8)) == std::make_pair(size_t(2), false));
  CHECK(gemm(Down(1, 512, 1024, 28, 28, 14)) == std::make_pair(size_t(1), false));
  CHECK(gemm(Down(1, 512, 1024, 36, 36, 18)) == std::make_pair(size_t(2), false));  // 324 rows
}

// The shape of "convolution_integer: a filter zero point at the middle of
// its type" takes the 8-warp tiles of 256 columns, A packed or gathered.
TEST_CASE("convolution plan: 256-column tiles for the symmetric zero points") {
  const vkdml::DeviceInfo gpu = withMultiprocessors(fullDevice(), 132);
  const Conv2d c(64, 256, 48, 48, 3);
  CHECK(planGemm(c, gpu, vkdml::ConvolutionPacking::Auto).kernel == "convolution_integer_coopmat_nv_n256_i32_packed");
  CHECK(planGemm(c, gpu, vkdml::ConvolutionPacking::None).kernel == "convolution_integer_coopmat_nv_n256_i32");
}
