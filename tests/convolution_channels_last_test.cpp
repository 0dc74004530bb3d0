// DML_CONVOLUTION_INTEGER over an input whose channels lie innermost (NHWC
// strides), which the cooperative-matrix GEMM reads in place as
// channels-last A (shader::A_FROM_INPUT, shaders/coopmat/step.glsl): the
// results against the plain reference through every path and packing, and
// the plans (no pack of A; none at all where the filter's channels lie
// innermost too, or its kernel is 1x1).
#include "convolution_integer.hpp"
#include "interface/convolution_integer.h"
#include "planning.hpp"

using namespace test::conv;
using namespace test::planning;

namespace {

// Strides of NCHW `sizes` with the channels innermost, `pixel` elements
// from one pixel to the next (at least C), rows and images dense over them.
std::vector<uint32_t> channelsInnermost(const std::vector<uint32_t>& sizes, uint32_t pixel) {
  return {sizes[2] * sizes[3] * pixel, 1, sizes[3] * pixel, pixel};
}

// `c` with its input channels-last, pixels `pixel` bytes apart, and (where
// `filterToo`) its filter's channels innermost as well.
Case channelsLast(Case c, uint32_t pixel, bool filterToo) {
  c.inputStrides = channelsInnermost(c.input, pixel);
  if (filterToo) c.filterStrides = channelsInnermost(c.filter, c.filter[1]);
  return c;
}

// Shapes both cases below take: a 3x3 kernel padded at both ends over rows
// past M, a deep K (split across workgroups), a large image over many tiles.
Case padded() {
  return case2d({2, 32, 7, 9}, {40, 32, 3, 3}, 1, 1, 1, 1, 1);
}
Case deep(uint32_t outputs = 64) {
  return case2d({1, 256, 6, 6}, {outputs, 256, 3, 3}, 1, 1, 1, 1, 1);
}
Case large() {
  return case2d({2, 32, 30, 30}, {20, 32, 3, 3}, 1, 1, 1, 1, 1);
}

}  // namespace

// Groups of a multiple of 32 channels, the input channels-last: pixels 16
// bytes apart or a multiple (read in place, every tap's range checked) and
// not (8 bytes past C: packed), the filter's channels innermost (B from its
// rows) or not (B packed). Padding at both ends or one, strides, dilations,
// two groups, a 1x1 kernel, a wide one, rows past M, a deep K (split across
// workgroups), a large image over many tiles.
TEST_CASE("convolution_integer: a channels-last input read in place") {
  std::mt19937_64 rng(142);
  // A wide kernel, strides and dilations apart per dimension, padding at one end each.
  Case wide = case2d({2, 32, 6, 11}, {24, 32, 1, 5}, 1, 1, 0, 0, 1);
  wide.strides = {1, 2}, wide.dilations = {2, 2}, wide.startPadding = {0, 3}, wide.endPadding = {1, 0};
  const Case grouped = case2d({1, 64, 6, 7}, {70, 32, 3, 3}, 1, 2, 2, 2, 2),
             pointwise = case2d({2, 96, 5, 5}, {16, 96, 1, 1}, 1, 1, 0, 0, 1),
             strided = case2d({1, 64, 9, 8}, {33, 64, 3, 3}, 2, 1, 1, 0, 1),
             wider = case2d({2, 64, 30, 30}, {40, 64, 3, 3}, 1, 1, 1, 1, 1);
  // Groups of 128 channels: each pair of K steps loaded 64 bytes a row into two buffers where the tiles do
  // not pair steps in one shared row (shader::A_PAIRED_CHUNKS; the emulated kernel's plan, K not split).
  const Case widePairs = case2d({2, 128, 9, 9}, {136, 128, 3, 3}, 1, 1, 1, 1, 1),
             pointwisePairs = case2d({2, 128, 12, 11}, {200, 128, 1, 1}, 1, 1, 0, 0, 1);
  runVariants(
      {channelsLast(padded(), 32, false), channelsLast(padded(), 48, true), channelsLast(grouped, 64, false),
       channelsLast(grouped, 64, true), channelsLast(pointwise, 96, false), channelsLast(deep(), 256, true),
       channelsLast(strided, 80, true), channelsLast(wide, 32, true), channelsLast(large(), 32, false),
       channelsLast(padded(), 40, true), channelsLast(pointwise, 104, false), channelsLast(wider, 64, true),
       channelsLast(wider, 80, false), channelsLast(widePairs, 128, true), channelsLast(pointwisePairs, 144, false)},
      rng);
}

namespace {

// `c` with its output's channels innermost, pixels `pixel` int32 apart.
Case outputChannelsLast(Case c, uint32_t pixel) {
  const Conv conv{c.strides, c.dilations, c.startPadding, c.endPadding, c.groups};
  c.outputStrides = channelsInnermost(conv.outputSizes(c.input, c.filter), pixel);
  return c;
}

}  // namespace

// An output whose channels lie innermost (NHWC): the cooperative-matrix
// epilogue stores 4 channels of a pixel as one 16-byte word where groups
// have a multiple of 4 output channels and pixels lie a multiple of 4
// int32 apart (shader::OUTPUT_N_QUADS); otherwise, and where K splits
// across the grid (a deep K over few tiles), 4 bytes a store or atomic add,
// each instruction along the channels (shader::OUTPUT_N_INNERMOST). Inputs
// channels-last (rows in order) and NCHW (gathered: rows interleaved in the
// tile), two groups, padded pixels, rows past M, many tiles.
TEST_CASE("convolution_integer: an output whose channels lie innermost") {
  std::mt19937_64 rng(143);
  // Groups of 36 output channels, and of 35 (no quads).
  const Case grouped = case2d({1, 64, 6, 7}, {72, 32, 3, 3}, 1, 2, 2, 2, 2),
             odd = case2d({1, 64, 6, 7}, {70, 32, 3, 3}, 1, 1, 1, 1, 2),
             gathered = case2d({2, 24, 9, 9}, {20, 24, 3, 3}, 1, 1, 1, 1, 1),
             pointwise = case2d({2, 40, 6, 6}, {24, 40, 1, 1}, 1, 1, 0, 0, 1);
  runVariants({outputChannelsLast(channelsLast(deep(), 256, true), 64),
               outputChannelsLast(channelsLast(deep(70), 256, true), 70),
               outputChannelsLast(channelsLast(padded(), 32, true), 40), outputChannelsLast(grouped, 72),
               outputChannelsLast(channelsLast(grouped, 64, false), 76), outputChannelsLast(odd, 70),
               outputChannelsLast(gathered, 20), outputChannelsLast(gathered, 22), outputChannelsLast(pointwise, 28),
               outputChannelsLast(channelsLast(large(), 32, true), 20), outputChannelsLast(large(), 24)},
              rng);
}

namespace {

// A UINT8 x INT8 convolution of N images, "same" padding at `stride`, its
// input channels-last (pixels `pixel` bytes apart) and its filter too where
// `filterChannelsLast`.
struct ChannelsLastConv {
  Desc input, filter, output;
  UINT strides[2], ones[2] = {1, 1}, pads[2];
  DML_CONVOLUTION_INTEGER_OPERATOR_DESC conv{};
  ChannelsLastConv(UINT n, UINT c, UINT oc, UINT hw, UINT k, UINT stride, UINT pixel, bool filterChannelsLast,
                   UINT outputPixel = 0)
      : input(DML_TENSOR_DATA_TYPE_UINT8, {n, c, hw, hw}, channelsInnermost({n, c, hw, hw}, pixel)),
        filter(DML_TENSOR_DATA_TYPE_INT8, {oc, c, k, k},
               filterChannelsLast ? channelsInnermost({oc, c, k, k}, c) : std::vector<UINT>{}),
        output(DML_TENSOR_DATA_TYPE_INT32, {n, oc, (hw - 1) / stride + 1, (hw - 1) / stride + 1},
               outputPixel == 0
                   ? std::vector<UINT>{}
                   : channelsInnermost({n, oc, (hw - 1) / stride + 1, (hw - 1) / stride + 1}, outputPixel)),
        strides{stride, stride},
        pads{k / 2, k / 2} {
    conv = {&input.tensor, nullptr, &filter.tensor, nullptr, &output.tensor, 2, strides, ones, pads, pads, 1};
  }
  DML_OPERATOR_DESC desc() const { return {DML_OPERATOR_CONVOLUTION_INTEGER, &conv}; }
};

// The kernels of `c`'s plan through Auto's packing on an H200-like device,
// and whether its GEMM (the last dispatch) reads A from the input, and in
// pairs of steps of 64 bytes a row.
struct Planned {
  std::vector<std::string> kernels;
  bool aFromInput = false, aPairs = false, outputChannelQuads = false;
};
Planned planned(const ChannelsLastConv& c) {
  const std::vector<Dispatch> dispatches = planOn(c, withMultiprocessors(fullDevice(), 132));
  Planned p;
  for (const Dispatch& d : dispatches) p.kernels.push_back(kernelName(d.kernel));
  // The GEMM's FLAGS, found by their id.
  vkdml::shader::ConvolutionIntegerCoopmatConstants marked;
  marked.FLAGS = 0xF1A65;
  for (const auto& [id, value] : vkdml::shader::specializationOf(marked))
    if (value == 0xF1A65)
      for (const auto& [gemmId, gemmValue] : dispatches.back().specialization)
        if (gemmId == id) {
          p.aFromInput = (gemmValue & vkdml::shader::A_FROM_INPUT) != 0;
          p.aPairs = (gemmValue & vkdml::shader::A_PAIRED_CHUNKS) != 0;
          p.outputChannelQuads = (gemmValue & vkdml::shader::OUTPUT_N_QUADS) != 0;
        }
  return p;
}

}  // namespace

// Auto reads a channels-last input in place for every shape whose groups
// take whole K steps, 1x1 kernels too: no pack where the filter's rows run
// k (ky, kx, c) (its channels innermost, or a 1x1 kernel), a pack of the
// filter alone otherwise. Pixels of other than a multiple of 16 bytes are
// packed as before. Few rows take the 64 x 64 tiles as gathered A does.
TEST_CASE("convolution plan: a channels-last input read in place") {
  auto check = [](const ChannelsLastConv& c, size_t dispatches, bool fromInput) {
    const Planned p = planned(c);
    INFO(p.kernels.front() << " ... " << p.kernels.back());
    CHECK(p.kernels.size() == dispatches);
    CHECK(p.aFromInput == fromInput);
  };
  // ResNet-50's layer3 3x3 256->256 14x14 and 1x1 1024->256 at batch 32.
  check(ChannelsLastConv(32, 256, 256, 14, 3, 1, 256, true), 1, true);
  check(ChannelsLastConv(32, 256, 256, 14, 3, 1, 256, false), 2, true);  // the filter packed
  check(ChannelsLastConv(32, 1024, 256, 14, 1, 1, 1024, false), 1, true);
  check(ChannelsLastConv(32, 256, 512, 28, 1, 2, 256, false), 1, true);  // 1x1 of stride 2
  check(ChannelsLastConv(1, 256, 256, 14, 3, 1, 256, true), 1, true);    // batch 1
  // Batch 1's 1x1 256->128 56x56 (3136 rows): tiles of 64 x 64 on 4 warps, as where A is gathered.
  CHECK(planned(ChannelsLastConv(1, 256, 128, 56, 1, 1, 256, false)).kernels.back() ==
        "convolution_integer_coopmat_nv_w4_m64_n64_i32_packed");
  // Pairs of K steps loaded 64 bytes a row over groups of a multiple of 64 channels, K not split: at batch 32
  // ResNet-50's layer3 3x3 256->256 14x14 (8-warp tiles of 128 columns, pairs in one shared row), its layer2
  // 3x3 128->128 28x28 (16 warps, 36 steps) and layer1 3x3 64->64 56x56 (4 warps, 18 steps: pairs in two
  // buffers); not its layer2 1x1 256->128 56x56 (16 warps, 8 steps), layer1 1x1 256->64 56x56 (4 warps, 8
  // steps), layer1 1x1 64->256 56x56 (256 columns), 3x3 512->512 7x7 (K split), nor groups of 96 channels.
  CHECK(planned(ChannelsLastConv(32, 256, 256, 14, 3, 1, 256, true)).aPairs);
  CHECK(planned(ChannelsLastConv(32, 128, 128, 28, 3, 1, 128, true)).aPairs);
  CHECK(planned(ChannelsLastConv(32, 64, 64, 56, 3, 1, 64, true)).aPairs);
  CHECK_FALSE(planned(ChannelsLastConv(32, 256, 128, 56, 1, 1, 256, false)).aPairs);
  CHECK_FALSE(planned(ChannelsLastConv(32, 256, 64, 56, 1, 1, 256, false)).aPairs);
  CHECK_FALSE(planned(ChannelsLastConv(32, 64, 256, 56, 1, 1, 64, false)).aPairs);
  CHECK_FALSE(planned(ChannelsLastConv(32, 512, 512, 7, 3, 1, 512, true)).aPairs);
  CHECK_FALSE(planned(ChannelsLastConv(32, 96, 256, 56, 1, 1, 96, false)).aPairs);
  // Pixels 8 bytes past a multiple of 16: the pack writes A.
  const Planned packed = planned(ChannelsLastConv(32, 256, 256, 14, 3, 1, 264, true));
  CHECK(packed.kernels.size() == 2);
  CHECK_FALSE(packed.aFromInput);
  // Groups of 16 channels: no channels-last A at all.
  CHECK_FALSE(planned(ChannelsLastConv(32, 16, 256, 14, 3, 1, 16, true)).aFromInput);
  // An NHWC output: 4 channels a store where pixels lie a multiple of 4 int32 apart, not where
  // they lie 2 int32 past such a multiple.
  CHECK(planned(ChannelsLastConv(32, 256, 256, 14, 3, 1, 256, true, 256)).outputChannelQuads);
  CHECK(planned(ChannelsLastConv(1, 256, 128, 56, 1, 1, 256, false, 132)).outputChannelQuads);
  CHECK_FALSE(planned(ChannelsLastConv(32, 256, 256, 14, 3, 1, 256, true, 258)).outputChannelQuads);
  CHECK_FALSE(planned(ChannelsLastConv(32, 256, 256, 14, 3, 1, 256, true)).outputChannelQuads);
  // K split across the grid keeps the flag: its chunks zero the tile's outputs 16 bytes at a time.
  CHECK(planned(ChannelsLastConv(32, 512, 512, 7, 3, 1, 512, true, 512)).outputChannelQuads);
}
