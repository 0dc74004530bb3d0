// DML_CONVOLUTION_INTEGER: the ONNX ConvInteger cases, shapes that reach
// every tile edge against a plain reference (filters 1x1 to 7x1, strides,
// dilations, asymmetric padding, groups up to depthwise, all four signedness
// combinations, zero points absent, per tensor and per channel, 3-D tensors,
// strided descriptors), extreme values and int32 wrap-around (the rules and
// options: convolution_integer_options_test.cpp).
#include <algorithm>
#include <cstdlib>

#include "convolution_integer.hpp"
#include "interface/convolution_integer.h"
#include "json.hpp"
#include "support.hpp"

using test::Tensor;
using namespace test::conv;

TEST_CASE("convolution_integer: ONNX conformance cases") {
  test::forEachConformanceCase("CONVOLUTION_INTEGER", 2, [](const test::Json& c) {
    const test::Json& params = c["params"];
    const test::Json& inputs = c["inputs"];
    auto uints = [](const test::Json& a) {
      std::vector<uint32_t> v;
      for (const auto& x : a.items) v.push_back(static_cast<uint32_t>(x.asUint()));
      return v;
    };
    Conv conv{uints(params["Strides"]), uints(params["Dilations"]), uints(params["StartPadding"]),
              uints(params["EndPadding"]), static_cast<uint32_t>(params["GroupCount"].asUint())};
    REQUIRE(params["DimensionCount"].asUint() == conv.spatial());
    Tensor input = test::tensorFromJson(inputs["InputTensor"]);
    Tensor filter = test::tensorFromJson(inputs["FilterTensor"]);
    std::optional<Tensor> xz, wz;
    if (inputs.has("InputZeroPointTensor")) xz = test::tensorFromJson(inputs["InputZeroPointTensor"]);
    if (inputs.has("FilterZeroPointTensor")) wz = test::tensorFromJson(inputs["FilterZeroPointTensor"]);
    Tensor expected = test::tensorFromJson(c["output"]);
    Tensor output(expected.type, expected.sizes);
    Tensor* xzp = xz ? &*xz : nullptr;
    Tensor* wzp = wz ? &*wz : nullptr;
    test::run(conv.make(input, xzp, filter, wzp, output), {&input, xzp, &filter, wzp}, {&output});
    test::expectSameElements(output, expected);
    // The reference agrees with the conformance data.
    test::expectSameElements(reference(conv, input, xzp, filter, wzp, expected.sizes), expected);
  });
}

TEST_CASE("convolution_integer: 1x1 and 3x3 filters") {
  std::mt19937_64 rng(119);
  runVariants(
      {case2d({2, 24, 5, 7}, {10, 24, 1, 1}, 1, 1, 0, 0, 1),  // 1x1: a plain GEMM
       case2d({1, 8, 9, 11}, {33, 8, 3, 3}, 1, 1, 1, 1, 1),   // 3x3 same, Ng just above 32
       case2d({1, 7, 1, 1}, {2, 7, 1, 1}, 1, 1, 0, 0, 1),     // one output pixel
       case2d({1, 3, 3, 3}, {1, 3, 3, 3}, 1, 1, 4, 4, 1),     // mostly padding
       // K of two steps of the cooperative-matrix kernel (both loaded
       // before either is stored): whole, and the second partial.
       case2d({1, 64, 5, 7}, {20, 64, 1, 1}, 1, 1, 0, 0, 1), case2d({1, 5, 6, 6}, {12, 5, 3, 3}, 1, 1, 1, 1, 1)},
      rng);
}

// Rows of whole words with x stride 1 and OW % 4 == 0: the cooperative-matrix
// kernel reads these with aligned word loads and funnel shifts, padding
// words included (kernels up to 5 wide, dilation 2).
TEST_CASE("convolution_integer: rows of whole 4-byte words") {
  std::mt19937_64 rng(131);
  runVariants(
      {case2d({2, 16, 8, 12}, {40, 16, 3, 3}, 1, 1, 1, 1, 1), case2d({1, 8, 4, 16}, {36, 8, 1, 1}, 1, 1, 0, 0, 1),
       case2d({1, 12, 6, 20}, {33, 12, 5, 5}, 1, 1, 2, 2, 1), case2d({1, 4, 8, 8}, {32, 4, 3, 3}, 1, 2, 2, 2, 1),
       case2d({3, 64, 4, 4}, {70, 32, 3, 3}, 1, 1, 1, 1, 2),
       case2d({2, 64, 3, 8}, {40, 64, 1, 1}, 1, 1, 0, 0, 1)},  // K = 64: two K steps
      rng);
}

TEST_CASE("convolution_integer: the widest tiles (128 x 128, 8 x 8 per invocation)") {
  std::mt19937_64 rng(117);
  runVariants({case2d({3, 2, 9, 9}, {130, 2, 3, 3}, 1, 1, 1, 1, 1),       // Ng > 128: two column tiles; M = 243
               case2d({1, 16, 12, 11}, {100, 16, 3, 3}, 1, 1, 1, 1, 1)},  // several deep K steps
              rng);
}

TEST_CASE("convolution_integer: 5x5 and 7x1 filters, strides, dilations, asymmetric padding") {
  std::mt19937_64 rng(118);
  Case tall = case2d({2, 6, 15, 8}, {5, 6, 7, 1}, 1, 1, 0, 0, 1);  // 7x1, separate y/x parameters
  tall.strides = {1, 3};
  tall.dilations = {2, 1};
  tall.startPadding = {3, 0};
  tall.endPadding = {2, 1};
  runVariants({case2d({1, 5, 13, 10}, {6, 5, 5, 5}, 2, 1, 2, 1, 1),  // 5x5 stride 2, asymmetric pads
               case2d({2, 3, 17, 9}, {4, 3, 5, 5}, 3, 2, 0, 3, 1),   // stride 3, dilation 2
               case2d({1, 4, 19, 19}, {3, 4, 3, 3}, 2, 3, 3, 0, 1),  // dilation 3, start padding only
               tall},
              rng);
}

// Padding along one dimension only, and end padding that no tap reaches:
// the cooperative-matrix kernel drops the range checks of a dimension whose
// taps all lie inside the input (word rows and gathered bytes alike).
TEST_CASE("convolution_integer: padding along one dimension, unreached end padding") {
  std::mt19937_64 rng(132);
  auto c2 = [](std::vector<uint32_t> input, std::vector<uint32_t> filter, std::vector<uint32_t> strides,
               std::vector<uint32_t> dilations, std::vector<uint32_t> pad0, std::vector<uint32_t> pad1) {
    Case c = case2d(std::move(input), std::move(filter), 1, 1, 0, 0, 1);
    c.strides = std::move(strides);
    c.dilations = std::move(dilations);
    c.startPadding = std::move(pad0);
    c.endPadding = std::move(pad1);
    return c;
  };
  runVariants({c2({1, 32, 6, 16}, {40, 32, 3, 1}, {1, 1}, {1, 1}, {1, 0}, {1, 0}),  // word rows, y padded only
               c2({2, 8, 5, 12}, {36, 8, 1, 3}, {1, 1}, {1, 1}, {0, 1}, {0, 1}),    // word rows, x padded only
               c2({1, 16, 9, 8}, {33, 16, 3, 3}, {2, 1}, {1, 1}, {0, 1}, {1, 1}),   // y end padding unreached
               c2({1, 6, 11, 11}, {20, 6, 3, 3}, {2, 2}, {2, 2}, {0, 0}, {0, 0})},  // gathers, no padding
              rng);
}

TEST_CASE("convolution_integer: groups, depthwise, batches up to 4") {
  std::mt19937_64 rng(120);
  runVariants({case2d({2, 6, 7, 7}, {10, 3, 3, 3}, 1, 1, 1, 1, 2),    // 2 groups
               case2d({1, 16, 8, 8}, {16, 1, 3, 3}, 1, 1, 1, 1, 16),  // depthwise
               case2d({4, 12, 6, 5}, {24, 1, 3, 3}, 2, 1, 1, 1, 12),  // depthwise, multiplier 2, N = 4
               case2d({3, 12, 5, 5}, {9, 4, 1, 1}, 1, 1, 0, 0, 3),    // 3 groups of 1x1
               case2d({4, 4, 4, 3}, {8, 2, 5, 5}, 1, 2, 4, 4, 2)},    // dilated, padded, grouped
              rng);
}

// The dot-product kernel's column tiles (16 to 128 wide, rows shrunk for
// few pixels), each partly filled along m and n, K past whole 16-, 32- and
// 64-deep steps, groups; narrower GEMMs, which take the portable kernel's
// structure; K split over dispatches for one row and 20 columns.
TEST_CASE("convolution_integer: every column tile, partial tiles, K past whole steps") {
  std::mt19937_64 rng(134);
  runVariants({case2d({1, 7, 9, 10}, {3, 7, 3, 3}, 1, 1, 1, 1, 1),      // 3 columns, K = 63
               case2d({2, 37, 6, 7}, {16, 37, 1, 1}, 1, 1, 0, 0, 1),    // 16 wide, K = 37
               case2d({1, 9, 15, 11}, {17, 9, 3, 3}, 1, 1, 1, 1, 1),    // 32 wide over 165 rows
               case2d({3, 100, 4, 5}, {33, 100, 3, 3}, 2, 1, 1, 1, 1),  // 64 wide, K = 900
               case2d({2, 48, 9, 9}, {231, 16, 3, 3}, 1, 1, 1, 1, 3),   // 3 groups of 77: 128 wide
               case2d({5, 21, 7, 9}, {129, 21, 2, 2}, 1, 2, 1, 0, 1)},  // two column tiles, 3 of rows
              rng);
  Case deep = case2d({1, 3, 200, 200}, {20, 3, 200, 200}, 1, 1, 0, 0, 1);  // K = 120000
  deep.inputZeroPoint = ZeroPoint::PerTensor;
  deep.filterZeroPoint = ZeroPoint::PerChannel;
  deep.inputType = I8;
  runCase(deep, rng);
}

TEST_CASE("convolution_integer: K over many tiles, C up to 512") {
  std::mt19937_64 rng(121);
  runVariants({case2d({1, 512, 2, 3}, {5, 512, 3, 3}, 1, 1, 1, 1, 1),     // Kg = 4608
               case2d({2, 300, 2, 2}, {17, 300, 1, 1}, 1, 1, 0, 0, 1),    // Kg = 300: a partial 16-chunk
               case2d({1, 512, 3, 1}, {4, 256, 7, 1}, 1, 1, 3, 3, 2),     // 7x1, 2 groups of 256
               case2d({1, 512, 2, 2}, {512, 1, 3, 3}, 1, 1, 1, 1, 512)},  // depthwise, 512 groups
              rng);
}

// Groups of a multiple of 32 channels, which the cooperative-matrix GEMM can
// read from a channels-last copy of the input (--convolution-packing=nhwc):
// padding at both ends or one, strides, dilations, groups, a 1x1 kernel, a
// tall one, rows past M, and a deep K over one tile (split across
// workgroups). Where H * W % 4 == 0 the pack reads the input's planes as
// words, in tiles of 32, 64 or 128 channels: images of several pack tiles
// (the last partial), rows of W % 4 != 0, padding at one end only, input
// rows and columns no tap reaches.
TEST_CASE("convolution_integer: groups of 32 channels and more") {
  std::mt19937_64 rng(133);
  Case tall = case2d({2, 32, 9, 6}, {36, 32, 5, 1}, 1, 1, 0, 0, 1);
  tall.strides = {2, 1};
  tall.dilations = {1, 3};
  tall.startPadding = {2, 0};
  tall.endPadding = {1, 2};
  const std::vector<Case> cases = {
      case2d({2, 32, 7, 9}, {40, 32, 3, 3}, 1, 1, 1, 1, 1),   case2d({1, 64, 9, 8}, {33, 64, 3, 3}, 2, 1, 1, 0, 1),
      case2d({1, 64, 6, 7}, {70, 32, 3, 3}, 1, 2, 2, 2, 2),   case2d({2, 96, 5, 5}, {16, 96, 1, 1}, 1, 1, 0, 0, 1),
      case2d({1, 256, 6, 6}, {64, 256, 3, 3}, 1, 1, 1, 1, 1), tall,
      case2d({2, 64, 6, 10}, {48, 32, 3, 3}, 1, 2, 2, 0, 2),  case2d({1, 32, 8, 12}, {20, 32, 3, 3}, 2, 1, 0, 2, 1),
      case2d({1, 32, 8, 8}, {36, 32, 3, 3}, 3, 1, 0, 0, 1),   case2d({2, 128, 20, 18}, {40, 128, 3, 3}, 1, 1, 1, 1, 1)};
  runVariants(cases, rng);
  runVariants({cases[0], cases[2]}, rng, true);
}

// A 1x1 kernel of stride 1 without padding over groups of a multiple of 32
// channels, whose im2col matrix the pack (--convolution-packing=ab) reads
// from whole words of the input's planes where H * W % 4 == 0: images of
// several pack tiles (the last partial) and m tiles across images, rows
// past M (the last m tile's), two groups, rows of W % 4 != 0, a deep K
// over 4 rows (split across workgroups); planes apart (strided) take the
// byte gathers.
TEST_CASE("convolution_integer: 1x1 of stride 1, the im2col matrix from words") {
  std::mt19937_64 rng(135);
  const std::vector<Case> cases = {
      case2d({3, 64, 12, 12}, {40, 64, 1, 1}, 1, 1, 0, 0, 1), case2d({2, 128, 6, 6}, {70, 64, 1, 1}, 1, 1, 0, 0, 2),
      case2d({1, 96, 8, 8}, {33, 96, 1, 1}, 1, 1, 0, 0, 1),   case2d({1, 256, 4, 4}, {20, 256, 1, 1}, 1, 1, 0, 0, 1),
      case2d({2, 32, 16, 16}, {36, 32, 1, 1}, 1, 1, 0, 0, 1), case2d({1, 512, 2, 2}, {9, 512, 1, 1}, 1, 1, 0, 0, 1)};
  runVariants(cases, rng);
  runVariants({cases[0], cases[1]}, rng, true);
}

// The cooperative-matrix kernel's tile order (bands of 8 m tiles, n
// slowest within a band, the last band shorter) and its grids where A
// comes packed: 8 warps for 70 tiles and (tiles 128 wide) for 20, 4 warps
// (64 wide, for 40 channels) for 35, and K split across the grid for 12
// tiles of 36 K steps.
TEST_CASE("convolution_integer: tile bands, 4 and 8 warps, K split over 12 tiles [large]") {
  std::mt19937_64 rng(134);
  runVariants(
      {case2d({1, 32, 66, 66}, {300, 32, 1, 1}, 1, 1, 0, 0, 1), case2d({1, 32, 34, 34}, {300, 32, 1, 1}, 1, 1, 0, 0, 1),
       case2d({1, 32, 32, 33}, {260, 32, 3, 3}, 1, 1, 1, 1, 1), case2d({1, 32, 66, 66}, {40, 32, 3, 3}, 1, 1, 1, 1, 1),
       case2d({1, 128, 40, 40}, {64, 128, 3, 3}, 1, 1, 0, 0, 1)},
      rng);
}

// The cooperative-matrix kernel's 16-warp tiles of 256 x 128 (the plans:
// convolution_coopmat_plan_test.cpp): A channels-last through packing nhwc
// (100 output channels, 5184 rows in 21 tiles, the last of 64 rows; two
// groups), and A gathered over 523 tiles of 8 warps through packing 0
// (66820 rows: 262 tiles of 16, the last of 4 rows; 72 of the 128
// columns). Only on devices that can run them (not lavapipe, with 32 KiB
// of shared memory: these shapes take 8 warps there, as other cases do).
TEST_CASE("convolution_integer: 16-warp tiles [large]") {
  const vkdml::DeviceInfo& info = test::device().info();
  if (info.maxComputeWorkGroupSizeX < 16 * 32 ||
      info.maxComputeSharedMemorySize < vkdml::shader::coopmatSharedBytes(16, 128)) {
    MESSAGE("skipped: the device cannot run 16-warp tiles");
    return;
  }
  std::mt19937_64 rng(139);
  runVariants({case2d({1, 64, 72, 72}, {100, 64, 3, 3}, 1, 1, 1, 1, 1),
               case2d({1, 128, 72, 72}, {200, 64, 3, 3}, 1, 1, 1, 1, 2),
               case2d({1, 16, 257, 260}, {72, 16, 1, 1}, 1, 1, 0, 0, 1)},
              rng);
}

// A filter zero point for the whole tensor at the middle of its type
// (ZeroPoint::PerTensorSymmetric), whose row sums the 8-warp tiles of 256
// columns leave out (ROW_SUMS_ON, shaders/coopmat/tile.glsl), and beside it
// random ones, which they must not: every signedness, A packed (Auto) and
// gathered (packing None). On an H200 this shape takes those tiles either
// way ("convolution plan: 256-column tiles for the symmetric zero points");
// lavapipe's 32 KiB of shared memory does not hold them.
TEST_CASE("convolution_integer: a filter zero point at the middle of its type [large]") {
  std::mt19937_64 rng(140);
  struct Restore {  // the options as they were, however the case ends
    vkdml::CompileOptions previous = test::compileOptions();
    ~Restore() { test::compileOptions() = previous; }
  } restore;
  const DML_TENSOR_DATA_TYPE types[4][2] = {{U8, U8}, {U8, I8}, {I8, U8}, {I8, I8}};
  for (auto packing : {restore.previous.convolutionPacking, vkdml::ConvolutionPacking::None}) {
    test::compileOptions().convolutionPacking = packing;
    for (int i = 0; i < 4; ++i) {
      Case c = case2d({1, 64, 48, 48}, {256, 64, 3, 3}, 1, 1, 1, 1, 1);
      c.inputType = types[i][0];
      c.filterType = types[i][1];
      c.inputZeroPoint = i % 2 ? ZeroPoint::PerTensor : ZeroPoint::PerTensorSymmetric;
      c.filterZeroPoint = i < 2 ? ZeroPoint::PerTensorSymmetric : ZeroPoint::PerTensor;
      runCase(c, rng);
    }
  }
}

// Few rows (batch 1): Auto takes tiles of 64 columns where they make at
// least as many workgroups, on 8 warps with K split across the grid (49
// rows, 320 columns: 5 tiles and a partial one's 64 columns; 32 and 144 K
// steps; a 1x1 filter over gathered rows, a 3x3 over packed ones; 784 rows
// in 28 tiles, split in chunks of 2 steps as few rows allow), on 4 without
// (784 rows, 4 K steps).
TEST_CASE("convolution_integer: few rows, tiles of 64 columns on 4 or 8 warps") {
  std::mt19937_64 rng(137);
  runVariants({case2d({1, 1024, 7, 7}, {320, 1024, 1, 1}, 1, 1, 0, 0, 1),
               case2d({1, 512, 7, 7}, {300, 512, 3, 3}, 1, 1, 1, 1, 1),
               case2d({1, 384, 28, 28}, {200, 384, 1, 1}, 1, 1, 0, 0, 1),
               case2d({1, 128, 28, 28}, {280, 128, 1, 1}, 1, 1, 0, 0, 1)},
              rng);
}

// Between 1024 and 4096 rows, where A is packed with each execution (the
// packings ab and nhwc here), K splits across the grid in chunks of 4 steps
// or more, the pack zeroing the output: 1156 rows in 10 tiles, 18 K steps
// in 4 chunks.
TEST_CASE("convolution_integer: K split where A is packed, up to 4096 rows") {
  std::mt19937_64 rng(138);
  runVariants({case2d({1, 64, 34, 34}, {40, 64, 3, 3}, 1, 1, 1, 1, 1)}, rng);
}

// The cooperative-matrix epilogue's 16-byte stores of 4 output pixels,
// across rows where an image's rows lie back to back: 14 x 14 and 6 x 6
// images (OW % 4 != 0, OH * OW % 4 == 0); 7 x 7 and 5 x 5 (49 and 25
// pixels) store one pixel per lane; strided outputs too.
TEST_CASE("convolution_integer: output quads across rows") {
  std::mt19937_64 rng(135);
  const std::vector<Case> cases = {
      case2d({2, 32, 14, 14}, {70, 32, 3, 3}, 1, 1, 1, 1, 1), case2d({3, 40, 6, 6}, {66, 40, 1, 1}, 1, 1, 0, 0, 1),
      case2d({2, 32, 14, 14}, {72, 32, 3, 3}, 2, 1, 1, 1, 1), case2d({1, 24, 9, 9}, {80, 24, 5, 5}, 1, 1, 0, 0, 1)};
  runVariants(cases, rng);
  runVariants(cases, rng, true);
  // Strides multiples of 4 where the quads would still be wrong: 49-pixel
  // images (a quad would run into the next image), rows 16 apart (into the
  // row's padding); and rows back to back in padded channels (right).
  auto withOutputStrides = [](Case c, std::vector<uint32_t> strides) {
    c.outputStrides = std::move(strides);
    return c;
  };
  runVariants({withOutputStrides(cases[2], {72 * 52, 52, 7, 1}), withOutputStrides(cases[0], {70 * 224, 224, 16, 1}),
               withOutputStrides(cases[0], {70 * 200, 200, 14, 1})},
              rng);
}

TEST_CASE("convolution_integer: 1x1 input quads across rows") {
  // A 1x1 kernel over every pixel reads 4 consecutive m as one word where an
  // image's rows lie back to back and it holds whole quads (14 x 14, 6 x 6,
  // channels padded to 200 bytes); not where the image has 49 pixels
  // (channels 49 or 52 apart), rows lie 16 apart, or a stride or padding
  // moves the pixels.
  std::mt19937_64 rng(136);
  auto withInputStrides = [](Case c, std::vector<uint32_t> strides) {
    c.inputStrides = std::move(strides);
    return c;
  };
  const Case c14 = case2d({2, 64, 14, 14}, {70, 64, 1, 1}, 1, 1, 0, 0, 1);
  const Case c7 = case2d({2, 36, 7, 7}, {70, 36, 1, 1}, 1, 1, 0, 0, 1);
  runVariants(
      {c14, case2d({3, 40, 6, 6}, {66, 40, 1, 1}, 1, 1, 0, 0, 1), c7, withInputStrides(c7, {36 * 52, 52, 7, 1}),
       withInputStrides(c14, {64 * 200, 200, 14, 1}), withInputStrides(c14, {64 * 224, 224, 16, 1}),
       case2d({2, 64, 14, 14}, {70, 64, 1, 1}, 2, 1, 0, 0, 1), case2d({2, 64, 14, 14}, {70, 64, 1, 1}, 1, 1, 1, 1, 1),
       case2d({2, 64, 14, 14}, {70, 64, 1, 1}, 1, 1, 0, 1, 1)},
      rng);
}

// x stride 2 over rows of whole words, a kernel 1 wide without x padding and
// OW % 4 == 0: the cooperative-matrix kernel reads each quad as the even
// bytes of two aligned words (y padding and a 3-tall kernel included); not
// where OW % 4 != 0, the quads pass the row's end (end padding) or rows are
// 18 bytes apart.
TEST_CASE("convolution_integer: 1x1 of stride 2 over rows of whole words") {
  std::mt19937_64 rng(137);
  Case tall = case2d({2, 8, 7, 16}, {20, 8, 3, 1}, 1, 1, 1, 1, 1);
  tall.strides = {1, 2};
  tall.startPadding = tall.endPadding = {1, 0};
  Case pastRow = case2d({1, 16, 4, 12}, {20, 16, 1, 1}, 2, 1, 0, 0, 1);
  pastRow.endPadding = {0, 4};
  Case rows18 = case2d({2, 16, 6, 16}, {36, 16, 1, 1}, 2, 1, 0, 0, 1);
  rows18.inputStrides = {16 * 6 * 18, 6 * 18, 18, 1};
  Case rows20 = rows18;
  rows20.inputStrides = {16 * 6 * 20, 6 * 20, 20, 1};
  runVariants(
      {case2d({2, 16, 8, 16}, {40, 16, 1, 1}, 2, 1, 0, 0, 1), case2d({1, 64, 12, 24}, {70, 64, 1, 1}, 2, 1, 0, 0, 1),
       case2d({3, 40, 6, 8}, {33, 40, 1, 1}, 2, 1, 0, 0, 1), case2d({2, 64, 8, 8}, {70, 32, 1, 1}, 2, 1, 0, 0, 2), tall,
       rows20, case2d({1, 16, 8, 12}, {20, 16, 1, 1}, 2, 1, 0, 0, 1), pastRow, rows18,
       // Output rows of 14 (byte gathers) over 196 rows: on a device that
       // counts its multiprocessors, Auto gathers them on 64 x 64 tiles.
       case2d({1, 48, 28, 28}, {70, 48, 1, 1}, 2, 1, 0, 0, 1)},
      rng);
}

TEST_CASE("convolution_integer: a short K over 2048 tiles of rows [large]") {
  // The pack writes such an im2col matrix a row per item (VKDML_PACK_A_ROWS,
  // the stem at batch 32) where both operands are packed, and the GEMM
  // loads it 3 K steps ahead: 4 steps (K = 99) go once round its ring.
  // Where rows are whole words the pack reads each tap row as the aligned
  // words around it: the 3x3 and the stem's 7x7 (stride 2) start at odd
  // bytes, the 3 x 8 taps (padding 2) at every byte of a word; rows of 519
  // bytes take the byte gathers.
  std::mt19937_64 rng(137);
  Case c = case2d({1, 11, 1024, 1024}, {16, 11, 3, 3}, 2, 1, 1, 1, 1);
  c.filterType = I8;
  c.inputZeroPoint = ZeroPoint::PerTensor;
  c.filterZeroPoint = ZeroPoint::PerChannel;
  Case stem = case2d({1, 3, 1024, 1024}, {8, 3, 7, 7}, 2, 1, 3, 3, 1);
  stem.inputZeroPoint = ZeroPoint::PerTensor;
  Case wide = case2d({1, 2, 516, 520}, {8, 2, 3, 8}, 1, 1, 2, 2, 1);
  wide.inputZeroPoint = ZeroPoint::PerTensor;
  Case odd = case2d({1, 2, 516, 519}, {8, 2, 3, 8}, 1, 1, 2, 2, 1);
  odd.inputZeroPoint = ZeroPoint::PerTensor;
  for (const Case& each : {c, stem, wide, odd}) runCase(each, rng);
}

TEST_CASE("convolution_integer: 3-D tensors (one spatial dimension)") {
  std::mt19937_64 rng(122);
  auto case1d = [](std::vector<uint32_t> input, std::vector<uint32_t> filter, uint32_t s, uint32_t d, uint32_t p0,
                   uint32_t p1, uint32_t g) {
    Case c;
    c.input = std::move(input);
    c.filter = std::move(filter);
    c.strides = {s};
    c.dilations = {d};
    c.startPadding = {p0};
    c.endPadding = {p1};
    c.groups = g;
    return c;
  };
  std::vector<Case> cases = {case1d({2, 12, 31}, {7, 12, 5}, 2, 2, 3, 1, 1),
                             case1d({1, 8, 40}, {8, 1, 3}, 1, 1, 1, 1, 8), case1d({3, 6, 9}, {4, 3, 1}, 3, 1, 0, 2, 2),
                             case1d({1, 100, 6}, {70, 100, 7}, 1, 3, 9, 9, 1)};
  runVariants(cases, rng);
  runVariants(cases, rng, true);
}

TEST_CASE("convolution_integer: strided descriptors, broadcast inputs and strided outputs") {
  std::mt19937_64 rng(123);
  runVariants({case2d({2, 6, 7, 9}, {10, 3, 3, 3}, 1, 1, 1, 1, 2), case2d({1, 40, 5, 4}, {20, 40, 1, 1}, 1, 1, 0, 0, 1),
               case2d({3, 4, 8, 8}, {4, 1, 5, 5}, 2, 1, 2, 2, 4), case2d({1, 70, 3, 3}, {9, 70, 3, 3}, 1, 1, 1, 0, 1)},
              rng, true);
}

TEST_CASE("convolution_integer: random shapes") {
  std::mt19937_64 rng(124);
  for (int trial = 0; trial < 12; ++trial) {
    CAPTURE(trial);
    runCase(randomCase(rng), rng);
  }
}

TEST_CASE("convolution_integer: extreme values and zero points at the ends of their range") {
  // Every input and filter element at one end of its type, zero points at
  // the other: each product is +-65025, the largest magnitude there is.
  struct Extreme {
    DML_TENSOR_DATA_TYPE xType;
    int32_t x, xz;
    DML_TENSOR_DATA_TYPE wType;
    int32_t w, wz;
  };
  const Extreme extremes[] = {{U8, 255, 0, U8, 255, 0},       {U8, 0, 255, U8, 255, 0},
                              {I8, -128, 127, I8, -128, 127}, {I8, 127, -128, I8, -128, 127},
                              {U8, 255, 0, I8, -128, 127},    {I8, -128, 127, U8, 0, 255},
                              {U8, 255, 255, I8, 127, -128}};
  for (const Extreme& e : extremes) {
    CAPTURE(std::string(vkdml::toString(e.xType)));
    CAPTURE(e.x);
    CAPTURE(e.xz);
    CAPTURE(std::string(vkdml::toString(e.wType)));
    CAPTURE(e.w);
    CAPTURE(e.wz);
    Conv conv{{1, 1}, {1, 1}, {1, 2}, {2, 1}, 1};
    Tensor input(e.xType, {2, 70, 4, 5}), filter(e.wType, {3, 70, 3, 3});
    for (uint64_t i = 0; i < input.elementCount(); ++i) input.set(i, test::bitsOfInteger(e.xType, e.x));
    for (uint64_t i = 0; i < filter.elementCount(); ++i) filter.set(i, test::bitsOfInteger(e.wType, e.w));
    Tensor xz(e.xType, {1, 1, 1, 1}), wz(e.wType, {1, 3, 1, 1});
    xz.set(0, test::bitsOfInteger(e.xType, e.xz));
    for (uint64_t i = 0; i < 3; ++i) wz.set(i, test::bitsOfInteger(e.wType, e.wz));
    Tensor output(I32, conv.outputSizes(input.sizes, filter.sizes));
    test::run(conv.make(input, &xz, filter, &wz, output), {&input, &xz, &filter, &wz}, {&output});
    Tensor expected = reference(conv, input, &xz, filter, &wz, output.sizes);
    test::expectSameElements(output, expected);
    // Output {2,3,5,6}: pixel (oy 1, ox 2) sees all 630 taps unpadded: 630 * (x - xz) * (w - wz).
    REQUIRE(output.sizes == std::vector<uint32_t>{2, 3, 5, 6});
    CHECK(static_cast<int32_t>(output.get(1 * 6 + 2)) == 630 * (e.x - e.xz) * (e.w - e.wz));
    // A corner pixel sees padding, which contributes 0 whatever the zero point.
    CHECK(static_cast<int32_t>(output.get(0)) == 70 * 2 * 1 * (e.x - e.xz) * (e.w - e.wz));
  }
}

TEST_CASE("convolution_integer: sums past 2^31 wrap in two's complement") {
  // K = 33792 products of 255 * 255: 2,197,324,800 > 2^31 - 1.
  Conv conv{{1, 1}, {1, 1}, {0, 0}, {0, 0}, 1};
  const uint32_t channels = 33792;
  Tensor input(U8, {1, channels, 1, 1}), filter(U8, {2, channels, 1, 1});
  for (uint64_t i = 0; i < input.elementCount(); ++i) input.set(i, 255);
  for (uint64_t i = 0; i < filter.elementCount(); ++i) filter.set(i, i < channels ? 255 : (i % 7) * 40);
  Tensor output(I32, {1, 2, 1, 1});
  test::run(conv.make(input, nullptr, filter, nullptr, output), {&input, nullptr, &filter, nullptr}, {&output});
  CHECK(static_cast<int32_t>(output.get(0)) == static_cast<int32_t>(uint32_t(33792u * 65025u)));
  CHECK(static_cast<int32_t>(output.get(0)) < 0);
  test::expectSameElements(output, reference(conv, input, nullptr, filter, nullptr, output.sizes));

  // Signed, negative way round, with zero points: (-128 - 127) * (127 - (-128)) = -65025 each.
  Tensor sx(I8, {1, channels, 1, 1}), sw(I8, {2, channels, 1, 1}), xz(I8, {1, 1, 1, 1}), wz(I8, {1, 2, 1, 1});
  for (uint64_t i = 0; i < sx.elementCount(); ++i) sx.set(i, test::bitsOfInteger(I8, -128));
  for (uint64_t i = 0; i < sw.elementCount(); ++i) sw.set(i, test::bitsOfInteger(I8, 127));
  xz.set(0, test::bitsOfInteger(I8, 127));
  wz.set(0, test::bitsOfInteger(I8, -128));
  wz.set(1, test::bitsOfInteger(I8, 127));  // channel 1: all zero
  test::run(conv.make(sx, &xz, sw, &wz, output), {&sx, &xz, &sw, &wz}, {&output});
  CHECK(static_cast<int32_t>(output.get(0)) == static_cast<int32_t>(uint32_t(0) - 33792u * 65025u));
  CHECK(static_cast<int32_t>(output.get(0)) > 0);
  CHECK(output.get(1) == 0);
}

TEST_CASE("convolution_integer: deep reductions, K up to 2^20 [large]") {
  // Lavapipe stops any shader loop after 65535 passes, so deep K runs as
  // several dispatches over chunks of it, each adding to the output: their
  // sum, zero-point terms included, must match one pass over all of K.
  constexpr uint32_t kDeep = 1u << 20;
  SUBCASE("all ones: the output counts every k") {
    Conv conv{{1, 1}, {1, 1}, {0, 0}, {0, 0}, 1};
    Tensor input(U8, {1, kDeep, 1, 1}), filter(U8, {1, kDeep, 1, 1}), output(I32, {1, 1, 1, 1});
    std::fill(input.bytes.begin(), input.bytes.end(), uint8_t(1));
    std::fill(filter.bytes.begin(), filter.bytes.end(), uint8_t(1));
    test::run(conv.make(input, nullptr, filter, nullptr, output), {&input, nullptr, &filter, nullptr}, {&output});
    CHECK(output.get(0) == kDeep);
  }
  std::mt19937_64 rng(126);
  auto deep = [](std::vector<uint32_t> input, std::vector<uint32_t> filter, DML_TENSOR_DATA_TYPE x,
                 DML_TENSOR_DATA_TYPE w, ZeroPoint xz, ZeroPoint wz) {
    Case c;
    const bool two = input.size() == 4;
    c.input = std::move(input);
    c.filter = std::move(filter);
    c.strides = c.dilations = two ? std::vector<uint32_t>{1, 1} : std::vector<uint32_t>{1};
    c.startPadding = c.endPadding = two ? std::vector<uint32_t>{0, 0} : std::vector<uint32_t>{0};
    c.inputType = x;
    c.filterType = w;
    c.inputZeroPoint = xz;
    c.filterZeroPoint = wz;
    return c;
  };
  SUBCASE("random values, with and without zero points, all signedness") {
    // K = 2^20 once, 2^17 (several chunks on every path) for the rest: the
    // emulated cooperative matrices take lavapipe seconds per 2^20.
    constexpr uint32_t k17 = 1u << 17;
    runCase(deep({1, kDeep, 1, 1}, {2, kDeep, 1, 1}, I8, U8, ZeroPoint::PerTensor, ZeroPoint::PerChannel), rng);
    runCase(deep({1, k17, 1, 1}, {2, k17, 1, 1}, U8, U8, ZeroPoint::None, ZeroPoint::None), rng);
    runCase(deep({1, k17, 1, 1}, {2, k17, 1, 1}, U8, I8, ZeroPoint::PerTensor, ZeroPoint::PerTensor), rng);
    runCase(deep({1, k17, 1, 1}, {2, k17, 1, 1}, I8, I8, ZeroPoint::None, ZeroPoint::PerChannel), rng);
  }
  SUBCASE("one spatial dimension: K = C * KW = 2^17 over 4 output pixels, padded") {
    Case c = deep({1, 1u << 16, 4}, {2, 1u << 16, 2}, U8, I8, ZeroPoint::PerTensor, ZeroPoint::PerChannel);
    c.startPadding = {1};
    runCase(c, rng);
  }
  SUBCASE("an odd C: filter rows at odd offsets, K not a whole number of steps") {
    runCase(deep({1, 27665, 1, 1}, {1, 27665, 1, 1}, U8, U8, ZeroPoint::None, ZeroPoint::None), rng);
    runCase(deep({1, 27665, 1, 1}, {2, 27665, 1, 1}, I8, U8, ZeroPoint::PerTensor, ZeroPoint::PerChannel), rng);
    runCase(deep({1, 27665, 1, 2}, {3, 27665, 1, 1}, U8, I8, ZeroPoint::None, ZeroPoint::PerTensor), rng);
    // The filter's channels 2 bytes apart: every chunk of its k is gathered byte by byte.
    for (bool zeroPoints : {false, true}) {
      CAPTURE(zeroPoints);
      Conv conv{{1, 1}, {1, 1}, {0, 0}, {0, 0}, 1};
      Tensor input(U8, {1, 27665, 1, 1}), filter(I8, {1, 27665, 1, 1}, {2 * 27665, 2, 1, 1});
      Tensor xz(U8, {1, 1, 1, 1}), wz(I8, {1, 1, 1, 1}), output(I32, {1, 1, 1, 1});
      for (Tensor* t : {&input, &filter, &xz, &wz}) t->randomize(rng);
      Tensor* xzp = zeroPoints ? &xz : nullptr;
      Tensor* wzp = zeroPoints ? &wz : nullptr;
      test::run(conv.make(input, xzp, filter, wzp, output), {&input, xzp, &filter, wzp}, {&output});
      test::expectSameElements(output, reference(conv, input, xzp, filter, wzp, output.sizes));
    }
  }
  SUBCASE("strided tensors") {
    Case c = deep({1, 1u << 17, 1, 2}, {2, 1u << 17, 1, 1}, I8, I8, ZeroPoint::PerTensor, ZeroPoint::PerTensor);
    c.strided = true;
    runCase(c, rng);
  }
}

TEST_CASE("convolution_integer: coordinates beyond 32 bits") {
  // Padding of 2^31 puts the spatial coordinates past int32: the 64-bit
  // variant. Taps land on x = -2^31, -2^30 and 0: only the last is inside.
  // 2 output channels, and 16 (the dot path's own kernel from there).
  std::mt19937_64 rng(125);
  for (uint32_t channels : {2u, 16u}) {
    CAPTURE(channels);
    Conv conv{{1u << 30}, {1}, {1u << 31}, {0}, 1};
    Tensor input(I8, {1, 3, 3}), filter(I8, {channels, 3, 1}), xz(I8, {1, 1, 1}), wz(I8, {1, channels, 1});
    for (Tensor* t : {&input, &filter, &xz, &wz}) t->randomize(rng);
    Tensor output(I32, conv.outputSizes(input.sizes, filter.sizes));
    output.randomize(rng);  // garbage: an all-padding output must be stored, not left as it was
    REQUIRE(output.sizes == std::vector<uint32_t>{1, channels, 3});
    test::run(conv.make(input, &xz, filter, &wz, output), {&input, &xz, &filter, &wz}, {&output});
    test::expectSameElements(output, reference(conv, input, &xz, filter, &wz, output.sizes));
    CHECK(output.get(0) == 0);  // all padding
  }
}
