// DML_CONVOLUTION_INTEGER's planner (OPERATORS.md, "DML_CONVOLUTION_INTEGER"): 8-bit
// convolution with zero points into INT32, run as a tiled implicit GEMM by
// shaders/convolution_integer.comp (M = N*OH*OW, N = OC/G, K = C/G*KH*KW),
// through packed dot products by shaders/convolution_integer_dot.comp,
// or on cooperative matrices by shaders/convolution_integer_coopmat.comp,
// after shaders/convolution_integer_pack.comp where operands are packed.
#include <algorithm>

#include "convolution_integer_dispatches.hpp"
#include "convolution_integer_plan.hpp"
#include "core/fill.hpp"

namespace vkdml {
namespace detail {

namespace {
// The cooperative-matrix kernel's tile (shader::COOPMAT_*): BM = 128 rows,
// BN = 64, 128 or 256 columns (8 warps of FN = 1, 2 or 4 fragments along n),
// or 64 (4 warps of 2); 256 x 128 on 16 warps; BK = 32, double-buffered.
// Packed operands take binding-table scratch: at most this much (the 3x3
// 256->256 layer of the benchmarks, N = 32, takes 232 MB), else the GEMM
// gathers its operands itself.
constexpr uint64_t kMaxPackedBytes = uint64_t(1) << 30;
constexpr uint32_t kOutputSlot = 4;  // after InputTensor, its zero point, FilterTensor, its zero point
constexpr size_t kTensorSlots = kOutputSlot + 1;

}  // namespace

std::vector<Dispatch> ConvolutionIntegerPlan::plan(const DeviceInfo& device, const CompileOptions& options,
                                                   const PlanDefaults& defaults) const {
  // Normalized to 4-D: a 3-D tensor {N, C, W} is {N, C, 1, W}.
  auto dims4 = [&](const TensorInfo& t, std::array<uint32_t, 4>& sizes, uint64_t* strides4) {
    const uint32_t r = t.rank;
    sizes = {t.sizes[0], t.sizes[1], r == 4 ? t.sizes[2] : 1, t.sizes[r - 1]};
    strides4[0] = t.strides[0];
    strides4[1] = t.strides[1];
    strides4[2] = r == 4 ? t.strides[2] : 0;
    strides4[3] = t.strides[r - 1];
  };
  ConvParams p{};
  std::array<uint32_t, 4> in{}, f{}, out{};
  dims4(input, in, p.inputStrides);
  dims4(filter, f, p.filterStrides);
  dims4(output, out, p.outputStrides);
  const uint32_t y = spatialDims == 2 ? 0 : 1;  // index of the H parameters, if any
  const uint32_t x = spatialDims - 1;
  p.inputH = in[2];
  p.inputW = in[3];
  p.outputH = out[2];
  p.outputW = out[3];
  p.kernelH = f[2];
  p.kernelW = f[3];
  p.strideY = spatialDims == 2 ? strides[y] : 1;
  p.dilationY = spatialDims == 2 ? dilations[y] : 1;
  p.padY = spatialDims == 2 ? startPadding[y] : 0;
  p.strideX = strides[x];
  p.dilationX = dilations[x];
  p.padX = startPadding[x];
  p.groupChannels = f[1];
  p.groupOutputChannels = out[1] / groups;
  p.groupK = f[1] * f[2] * f[3];  // at most the filter's element count
  p.M = out[0] * out[2] * out[3];
  if (inputZeroPoint) p.flags |= shader::HAS_INPUT_ZERO_POINT;
  if (filterZeroPoint) {
    p.flags |= shader::HAS_FILTER_ZERO_POINT;
    // Per output channel: step along the channel dimension; per tensor: one element.
    const uint32_t c = zeroPointChannelDimension(filterZeroPoint->rank);
    p.filterZeroPointStride = filterZeroPoint->sizes[c] > 1 ? filterZeroPoint->strides[c] : 0;
  }

  if (input.dataType == DML_TENSOR_DATA_TYPE_INT8) p.flags |= shader::INPUT_SIGNED_FLAG;
  if (filter.dataType == DML_TENSOR_DATA_TYPE_INT8) p.flags |= shader::FILTER_SIGNED_FLAG;
  const uint32_t indexBits = index64 ? 64 : 32;

  // The cooperative-matrix kernel reads quads of 4 output pixels as 4
  // consecutive input bytes when x moves by 1 byte per pixel and rows hold
  // whole quads; it reads them as aligned words, which lie wholly inside or
  // outside a row when rows are whole words and start 4-byte aligned
  // (binding offsets included).
  const bool wordRows = p.inputW % 4 == 0 && p.inputStrides[0] % 4 == 0 && p.inputStrides[1] % 4 == 0 &&
                        p.inputStrides[2] % 4 == 0 && input.offsetAlignment >= 4;
  // A 1x1 kernel that reads every input pixel in order over images whose
  // rows lie back to back and hold whole quads of pixels (14 x 14) reads 4
  // consecutive m as 4 consecutive bytes too, across rows.
  const bool imageRows = p.kernelH == 1 && p.kernelW == 1 && p.strideY == 1 && p.strideX == 1 && p.padY == 0 &&
                         p.padX == 0 && p.inputH == p.outputH && p.inputW == p.outputW && p.inputStrides[3] == 1 &&
                         (p.inputH == 1 || p.inputStrides[2] == p.inputW) && (uint64_t(p.inputH) * p.inputW) % 4 == 0 &&
                         p.inputStrides[0] % 4 == 0 && p.inputStrides[1] % 4 == 0 && input.offsetAlignment >= 4;
  const bool contiguousRows = (p.inputStrides[3] == 1 && p.strideX == 1 && p.outputW % 4 == 0 && wordRows) || imageRows;
  // The cooperative-matrix kernel alone also reads quads of x stride 2 from
  // such rows (a kernel 1 wide, no x padding, the quads' 8 bytes inside the
  // row) as the even bytes of two aligned words: the 1x1/2 layers of ResNets.
  const bool stride2Rows = p.inputStrides[3] == 1 && p.strideX == 2 && p.kernelW == 1 && p.padX == 0 &&
                           p.outputW % 4 == 0 && uint64_t(2) * p.outputW <= p.inputW && wordRows;
  // The cooperative-matrix GEMM's tiles: 256 columns where they fit (A is
  // then staged once per 256 output channels: measured faster than 128,
  // bench/results/four_warp_tiles.md), unless narrower ones pay (below). The
  // filter (B), and for some shapes the im2col matrix (A), are packed into
  // scratch first (convolution_integer_pack.comp, choosePacking) where that
  // takes at most kMaxPackedBytes: the GEMM then stages whole 16-byte
  // chunks of them instead of gathering. Whether A and B fit decides the
  // path where rows are byte gathers.
  uint32_t bn =
      p.groupOutputChannels > 128 && device.maxComputeSharedMemorySize >= coopmatSharedBytes(8, 256) ? 256 : 128;
  const uint32_t mTiles = ceilDiv32(p.M, shader::COOPMAT_BM);
  uint32_t nTiles = ceilDiv32(p.groupOutputChannels, bn);
  const uint32_t kTiles = ceilDiv32(p.groupK, shader::COOPMAT_BK);
  // Sizes that pass 2^64 only need to be known too large (valueOr).
  const uint64_t packedA =
      (Checked(groups) * mTiles * kTiles * (shader::COOPMAT_BM * shader::COOPMAT_BK)).valueOr(~uint64_t(0) / 2);
  uint64_t packedB = (Checked(groups) * nTiles * kTiles * (bn * shader::COOPMAT_BK)).valueOr(~uint64_t(0) / 2);
  // The channels-last input over its padded extent (A_CHANNELS_LAST).
  const uint64_t channelsLastA =
      (Checked(out[0]) * VKDML_PADDED_EXTENT(uint64_t(p.outputH), p.strideY, p.kernelH, p.dilationY) *
       VKDML_PADDED_EXTENT(uint64_t(p.outputW), p.strideX, p.kernelW, p.dilationX) * in[1])
          .valueOr(~uint64_t(0) / 2);
  auto fitsScratch = [&](uint64_t bytes) {
    return bytes <= kMaxPackedBytes && bytes <= device.maxMemoryAllocationSize;
  };
  const ConvolutionPath path = choosePath(options, defaults, device, p.M, p.groupOutputChannels, p.groupK,
                                          contiguousRows, fitsScratch(packedA + packedB));
  // How the tiled kernels (cooperative-matrix and dot-product) read A.
  if (contiguousRows) p.flags |= shader::INPUT_ROWS_CONTIGUOUS;
  // Taps that never reach padding need no range checks: none start
  // before 0, the last output's last tap lies before the end.
  auto inRange = [](uint32_t size, uint32_t outSize, uint32_t kernel, uint32_t stride, uint32_t dilation,
                    uint32_t pad) {
    return pad == 0 && uint64_t(outSize - 1) * stride + uint64_t(kernel - 1) * dilation < size;
  };
  if (inRange(p.inputH, p.outputH, p.kernelH, p.strideY, p.dilationY, p.padY)) p.flags |= shader::TAPS_Y_IN_RANGE;
  if (inRange(p.inputW, p.outputW, p.kernelW, p.strideX, p.dilationX, p.padX)) p.flags |= shader::TAPS_X_IN_RANGE;
  Dispatch d;
  if (path == ConvolutionPath::CooperativeMatrix || path == ConvolutionPath::CooperativeMatrixEmulated ||
      path == ConvolutionPath::CooperativeMatrixKHR) {
    const DeviceInfo::MatrixShape fragment = coopmatFragment(path, options, device);
    // The emulated variants of shapes other than 16x16x32 exist for 8-warp
    // tiles of 128 columns and 4-warp ones of 64, with 32-bit offsets
    // (shaders/CMakeLists.txt): enough to test those shapes' code.
    const bool fewTiles =
        path == ConvolutionPath::CooperativeMatrixEmulated && !sameShape(fragment, kFragmentShapes[0]);
    if (fewTiles && indexBits != 32)
      throwUnsupported(kConvolutionIntegerOp, "CompileOptions.matrixShape",
                       concat("the coopmat-emulated path takes ", fragment.m, "x", fragment.n, "x", fragment.k,
                              " fragments with 32-bit offsets only, and these tensors need 64-bit ones"));
    if (fewTiles && bn == 256) {
      bn = 128;
      nTiles = ceilDiv32(p.groupOutputChannels, bn);
      packedB = (Checked(groups) * nTiles * kTiles * (bn * shader::COOPMAT_BK)).valueOr(~uint64_t(0) / 2);
    }
    if ((p.kernelW == 1 || p.filterStrides[3] == 1) && (p.kernelH == 1 || p.filterStrides[2] == p.kernelW) &&
        (p.groupChannels == 1 || p.filterStrides[1] == uint64_t(p.kernelH) * p.kernelW))
      p.flags |= shader::FILTER_K_CONTIGUOUS;
    if (p.groupK % shader::COOPMAT_BK == 0) p.flags |= shader::K_WHOLE_STEPS;
    // Quads of m along a row, or across the rows of an image whose rows lie
    // back to back and whose pixels come in quads (14 x 14).
    const bool rowQuads = p.outputW % 4 == 0 && p.outputStrides[2] % 4 == 0;
    const bool imageQuads =
        (p.outputH == 1 || p.outputStrides[2] == p.outputW) && (uint64_t(p.outputH) * p.outputW) % 4 == 0;
    if (p.outputStrides[3] == 1 && p.outputStrides[0] % 4 == 0 && p.outputStrides[1] % 4 == 0 &&
        (rowQuads || imageQuads))
      p.flags |= shader::OUTPUT_M_QUADS;
    // An output whose channels lie innermost (NHWC): stores along them, 4 channels a store where
    // they make aligned quads.
    if (p.outputStrides[1] == 1) p.flags |= shader::OUTPUT_N_INNERMOST;
    if (p.outputStrides[1] == 1 && p.outputStrides[0] % 4 == 0 && p.outputStrides[2] % 4 == 0 &&
        p.outputStrides[3] % 4 == 0 && p.groupOutputChannels % 4 == 0)
      p.flags |= shader::OUTPUT_N_QUADS;
    p.mTiles = mTiles;
    p.nTiles = nTiles;
    p.tiles = p.mTiles * p.nTiles * groups;
    p.kTiles = kTiles;
    if (p.kTiles == 2) p.flags |= shader::K_TWO_STEPS;
    // Channels-last A needs whole K steps of one tap: groups of a multiple of 32 channels.
    const bool channelsLastSteps = p.groupChannels % shader::COOPMAT_BK == 0;
    if (stride2Rows) p.flags |= shader::INPUT_ROWS_STRIDE2;
    // An input whose channels lie innermost, its other strides and its binding 16-byte aligned, is
    // channels-last A as it lies: the GEMM reads it in place, range-checking each tap, and no pack
    // writes A (shader::A_FROM_INPUT).
    const bool inputChannelsLast = channelsLastSteps && p.inputStrides[1] == 1 && p.inputStrides[0] % 16 == 0 &&
                                   p.inputStrides[2] % 16 == 0 && p.inputStrides[3] % 16 == 0 &&
                                   input.offsetAlignment % 16 == 0 && indexBits == 32;
    ConvolutionPacking packs = choosePacking(
        options, defaults, contiguousRows || stride2Rows, p.M, p.groupOutputChannels, p.groupK,
        p.kernelH == 1 && p.kernelW == 1, channelsLastSteps, filter.owned,
        device.multiprocessors != 0 && indexBits == 32 && sameShape(fragment, kFragmentShapes[0]), inputChannelsLast);
    if (packs == ConvolutionPacking::ChannelsLast && !channelsLastSteps) packs = ConvolutionPacking::Filter;
    const bool aFromInput = packs == ConvolutionPacking::ChannelsLast && inputChannelsLast;
    const uint64_t aBytes = packs == ConvolutionPacking::Both                          ? packedA
                            : packs == ConvolutionPacking::ChannelsLast && !aFromInput ? channelsLastA
                                                                                       : 0;
    const bool packing = packs != ConvolutionPacking::None && fitsScratch(aBytes + packedB);
    const uint32_t aPacking = !packing                                    ? shader::A_GATHERED
                              : packs == ConvolutionPacking::Both         ? shader::A_IM2COL
                              : packs == ConvolutionPacking::ChannelsLast ? shader::A_CHANNELS_LAST
                                                                          : shader::A_GATHERED;
    const bool packA = aPacking != shader::A_GATHERED;  // A in chunks, packed or (aFromInput) as it lies
    const bool packsA = packA && !aFromInput;           // a pack writes A with each execution
    if (packing && aFromInput) p.flags |= shader::A_FROM_INPUT;
    // Packed chunks 3 K steps ahead (the _p3 variants) where the filter
    // alone is packed, and where A is packed by rows (a short K over many
    // tiles: the stem at batch 32); 1 step ahead where A is packed
    // otherwise (bench/results/four_warp_tiles.md).
    const bool aRows = shader::packARows(aPacking, kTiles, mTiles);
    const bool prefetch = packing && (!packA || aRows);
    const bool emulated = path == ConvolutionPath::CooperativeMatrixEmulated;
    // Narrower tiles: where K is not split across the grid, 128 columns where
    // the tiles of 256 are few (they leave most of a large GPU idle; these
    // make twice as many) (bench/results/four_warp_tiles.md); split or not,
    // 64 columns for at most 64 output channels, where half of a 128-column
    // tile's would be idle fragments (split, batch 1's 3x3 64->64 layer took
    // 0.93x the time on the H200: bench/results/packing.md, 2026-11-28).
    const bool narrow = p.groupOutputChannels <= 64;
    // The workgroups a grid of `tiles` tiles of `warps` x `columns` makes,
    // K split across them or not.
    auto gridWorkgroups = [&](uint64_t tiles, uint32_t warpCount, uint32_t columns) {
      const uint32_t steps = parallelChunkSteps(
          splitGemm(coopmatLoops(columns, warpCount, emulated, packing, prefetch, fragment), tiles, kTiles, device),
          tiles, kTiles, output, p.M, packsA, device);
      return tiles * (steps == 0 ? 1 : (kTiles + steps - 1) / steps);
    };
    const bool eightSplit = parallelChunkSteps(splitGemm(coopmatLoops(bn, 8, emulated, packing, prefetch, fragment),
                                                         p.tiles, kTiles, device),
                                               p.tiles, kTiles, output, p.M, packsA, device) != 0;
    // Where the device counts its multiprocessors (one 8-warp workgroup
    // each), also 128 columns where tiles of 256 span two column tiles or
    // more and those of 128 take fewer than twice their waves: the last wave
    // of 256-column tiles then leaves many multiprocessors idle, and a
    // 128-column tile takes well under twice the time of a 256-column one
    // (bench/results/four_warp_tiles.md, 2026-11-29).
    const uint64_t sms = device.multiprocessors;
    auto waves = [&](uint64_t tiles) { return (tiles + sms - 1) / sms; };
    const uint64_t tiles128 = uint64_t(p.mTiles) * ((p.groupOutputChannels + 127) / 128) * groups;
    const bool idleLastWave =
        sms != 0 && bn == 256 && !eightSplit && p.nTiles >= 2 && waves(tiles128) < 2 * waves(p.tiles);
    bool narrowerTiles = (p.tiles <= kFewTilesMax && bn == 256 && !eightSplit) || narrow || idleLastWave;
    uint32_t narrowerColumns = narrow ? 64 : 128;
    // Few rows (batch 1): tiles of 64 columns on 4 warps wherever they make
    // at least as many workgroups as the plan above, K split or not, unless A
    // is gathered through a kernel wider than 1x1 (each column tile gathers
    // its rows again) (measured against 256-column plans on the H200:
    // bench/results/batch1_narrow_tiles.md; a device whose 8-warp tiles
    // are 128 wide weighs them the same way).
    if (!narrow && p.M <= kNarrowTilesMaxRows &&
        (aPacking != shader::A_GATHERED || (p.kernelH == 1 && p.kernelW == 1))) {
      const uint64_t tiles64 = uint64_t(p.mTiles) * ((p.groupOutputChannels + 63) / 64) * groups;
      const uint64_t current =
          narrowerTiles ? gridWorkgroups(uint64_t(p.mTiles) * ((p.groupOutputChannels + 127) / 128) * groups, 8, 128)
                        : gridWorkgroups(p.tiles, 8, bn);
      if (gridWorkgroups(tiles64, 4, 64) >= current) {
        narrowerTiles = true;
        narrowerColumns = 64;
      }
    }
    // Tiles of 64 x 64 on 4 warps (the _w4_m64_n64 variants, 2 x 2 fragments a
    // warp) where A is gathered or channels-last, the device counts its
    // multiprocessors and they take no more waves than the tiles they replace:
    // 4-warp tiles of 64 columns, split across the grid or not (halfSplit,
    // halfRows below), and, A gathered or read from the input in place, 8-warp ones of 128 where K is
    // not split (here). $VKDML_COOPMAT_ROWS=64 takes them wherever they fit, 96 or 128
    // nowhere (measured on the H200: bench/results/batch1_narrow_tiles.md).
    const uint32_t halfBM = shader::coopmatBM(4, shader::COOPMAT_HALF_FM);
    const bool squareFits = (!packing || (aPacking == shader::A_CHANNELS_LAST && !prefetch)) && indexBits == 32 &&
                            sameShape(fragment, kFragmentShapes[0]);
    const uint64_t squareTiles = (uint64_t(p.M) + halfBM - 1) / halfBM * ((p.groupOutputChannels + 63) / 64) * groups;
    if (sms != 0 && defaults.coopmatRows == 0 && squareFits && (!packing || aFromInput) && !eightSplit &&
        (narrowerTiles ? narrowerColumns : bn) == 128 &&
        waves(squareTiles) <= waves(narrowerTiles ? tiles128 : p.tiles))
      narrowerTiles = true, narrowerColumns = 64;
    // 16 warps (the _w16 variants, tiles of 256 x 128) in place of 8 on
    // tiles of 128 columns where K is not split and either A comes
    // channels-last or the 8-warp tiles are many: twice the warps per SM;
    // on smaller grids they lost (bench/results/occupancy.md). At 16x16x32
    // and without the register ring, the one variant they have.
    const bool sixteenWarps =
        !narrowerTiles && bn == 128 && !eightSplit && !prefetch &&
        (aPacking == shader::A_CHANNELS_LAST || (aPacking == shader::A_GATHERED && p.tiles >= kSixteenWarpsMinTiles)) &&
        sameShape(fragment, kFragmentShapes[0]) && device.maxComputeWorkGroupSizeX >= 16 * 32 &&
        device.maxComputeSharedMemorySize >= coopmatSharedBytes(16, 128);
    // Tiles of 128 columns take 8 warps (4 x 2 fragments each): on these few
    // tiles (one workgroup per SM) 4 warps of 4 x 4 ran 7-16% slower on the
    // H100. Tiles of 64 columns take 4 warps of 4 x 2, or where K splits
    // across the grid 8 warps of 4 x 1 (the _n64 variants): each chunk's
    // few K steps and its atomic adds spread over twice the warps (ten of
    // the twelve such batch-1 layers of ResNet-50 took 2-9% less time, two
    // 1-2% more; where K is not split 8 warps took more). At 16x16x32 with
    // 32-bit offsets, the one _n64 variant (bench/results/four_warp_tiles.md).
    // Where the 64 x 64 tiles (above) apply, 4 warps on them in place of those 8.
    const uint64_t narrowTiles = uint64_t(p.mTiles) * ((p.groupOutputChannels + 63) / 64) * groups;
    const bool halfSplit =
        squareFits && (defaults.coopmatRows != 0 ? defaults.coopmatRows == halfBM
                                                 : sms != 0 && waves(squareTiles) <= waves(narrowTiles));
    const bool eightNarrow = narrowerTiles && narrowerColumns == 64 && indexBits == 32 &&
                             sameShape(fragment, kFragmentShapes[0]) &&
                             gridWorkgroups(narrowTiles, 4, 64) > narrowTiles && !halfSplit;
    const uint32_t warps = narrowerTiles && narrowerColumns == 64 && !eightNarrow ? 4 : sixteenWarps ? 16 : 8;
    if (narrowerTiles) {
      bn = narrowerColumns;
      nTiles = ceilDiv32(p.groupOutputChannels, bn);
      p.nTiles = nTiles;
      p.tiles = p.mTiles * p.nTiles * groups;
      packedB = (Checked(groups) * nTiles * kTiles * (bn * shader::COOPMAT_BK)).valueOr(~uint64_t(0) / 2);
    }
    // Tiles of 96 rows (the _m96 variants, 3 x 2 fragments a warp) in place
    // of 128 where A comes channels-last on 8-warp tiles of 128 columns, K
    // not split, if they take no more waves over the device's
    // multiprocessors: more of them busy, each tile's K step at 0.87-0.92 of
    // the time for 0.75 of the multiplies (bench/results/gemm_limits.md).
    // $VKDML_COOPMAT_ROWS (defaults.coopmatRows) takes them wherever they
    // apply (96) or nowhere (64 or 128).
    const uint32_t shortBM = shader::coopmatBM(8, shader::COOPMAT_SHORT_FM);
    const uint64_t shortTiles = (uint64_t(p.M) + shortBM - 1) / shortBM * p.nTiles * groups;
    const bool shortFits = aPacking == shader::A_CHANNELS_LAST && warps == 8 && bn == 128 && indexBits == 32 &&
                           !prefetch && !eightSplit && sameShape(fragment, kFragmentShapes[0]);
    const bool shortRows = shortFits && (defaults.coopmatRows != 0 ? defaults.coopmatRows == shortBM
                                                                   : sms != 0 && waves(shortTiles) <= waves(p.tiles));
    // The 64 x 64 tiles (above) on the 4-warp tiles of 64 columns.
    const uint64_t halfTiles = (uint64_t(p.M) + halfBM - 1) / halfBM * p.nTiles * groups;
    const bool halfFits = warps == 4 && squareFits;
    const bool halfRows = halfFits && (defaults.coopmatRows != 0 ? defaults.coopmatRows == halfBM
                                                                 : sms != 0 && waves(halfTiles) <= waves(p.tiles));
    const uint32_t bm = halfRows ? halfBM : shortRows ? shortBM : shader::coopmatBM(warps);
    if (sixteenWarps || shortRows || halfRows) {
      p.mTiles = ceilDiv32(p.M, bm);
      p.tiles = p.mTiles * p.nTiles * groups;
    }
    const uint64_t scratchBytes = aBytes + packedB;
    // The KHR variants are the NV ones translated (tools/spirv_nv_to_khr): the same plan.
    d.kernel = path == ConvolutionPath::CooperativeMatrixKHR
                   ? convolutionIntegerCoopmatKhrKernel(warps, bm, bn, indexBits, packing, prefetch, fragment.m,
                                                        fragment.n, fragment.k)
                   : convolutionIntegerCoopmatKernel(emulated, warps, bm, bn, indexBits, packing, prefetch, fragment.m,
                                                     fragment.n, fragment.k);
    // The geometry and flags as specialization constants, for the driver to fold.
    using Coopmat = shader::ConvolutionIntegerCoopmatConstants;
    Coopmat constants = withGeometry<Coopmat>(p);
    constants.WORKGROUP_SIZE = 32 * warps;
    constants.A_PACKING = aPacking;
    // A in scratch: none of what the pack read (shader::GATHER_FLAGS) and none of the geometry
    // (channels-last A takes its taps' from ConvParams), so that layers of other shapes share the
    // pipeline; emulated, nor the PARAM_FLAGS: that kernel reads both from ConvParams (coopmat/tile.glsl).
    const uint32_t constantFlags = ~(packA ? shader::GATHER_FLAGS : 0u) & ~(emulated ? shader::PARAM_FLAGS : 0u);
    if (packA || emulated) {
      const Coopmat none;
      constants.KH = none.KH, constants.KW = none.KW;
      constants.STRIDE_Y = none.STRIDE_Y, constants.STRIDE_X = none.STRIDE_X;
      constants.DILATION_Y = none.DILATION_Y, constants.DILATION_X = none.DILATION_X;
      constants.PAD_Y = none.PAD_Y, constants.PAD_X = none.PAD_X;
    }
    const GemmLoops loops = coopmatLoops(bn, warps, emulated, packing, prefetch, fragment);
    const GemmSplit split = splitGemm(loops, p.tiles, kTiles, device);
    // The GEMM's dispatches: K split across the grid into a zeroed output, else as splitGemm says.
    const uint32_t chunkSteps = parallelChunkSteps(split, p.tiles, kTiles, output, p.M, packsA, device);
    // Two K steps side by side in each shared row (shader::K_PAIRED_ROWS) where A comes in scratch,
    // K is not split across the grid and the device's shared memory holds them, on the one-step-ahead
    // variants' 8-warp tiles of 128 columns (64-column tiles ran slower, 256-column ones need more than
    // 48 KiB: bench/results/paired_steps.md), and emulated wherever they fit (32 KiB: 64 columns) but over
    // channels-last groups of a multiple of 128 channels, so that each device tests both ways of pairing A
    // (shader::A_PAIRED_CHUNKS, below).
    const bool emulatedPairedRows = emulated && !(aPacking == shader::A_CHANNELS_LAST && p.groupChannels % 128 == 0);
    if (packA && !prefetch && chunkSteps == 0 && (emulatedPairedRows || (warps == 8 && bn == 128)) &&
        device.maxComputeSharedMemorySize >= coopmatSharedBytes(warps, bn, true))
      p.flags |= shader::K_PAIRED_ROWS;
    // Channels-last A whose pairs of steps lie in one tap: each pair loaded as 64 bytes a row
    // (shader::A_PAIRED_CHUNKS) into one shared row (K_PAIRED_ROWS) or, on 4- and 16-warp tiles over 16 steps
    // or more, two buffers, and emulated (to test it) wherever the K loop takes steps in pairs (one step ahead,
    // K not split across the grid). Shorter K loops and the 8-warp tiles of 256 columns ran slower with the two
    // buffers (bench/results/channels_last.md, 2026-12-04 (evening)).
    const bool pairsInBuffers = !prefetch && chunkSteps == 0 && (emulated || (warps != 8 && kTiles >= 16));
    if (((p.flags & shader::K_PAIRED_ROWS) != 0 || pairsInBuffers) && aPacking == shader::A_CHANNELS_LAST &&
        p.groupChannels % 64 == 0)
      p.flags |= shader::A_PAIRED_CHUNKS;
    // Unpadded rows on 4-warp tiles (shader::ROWS_UNPADDED) where the device counts its
    // multiprocessors and the grid gives each more than two workgroups: three then fit one
    // (bench/results/occupancy.md); emulated on every 4-warp tile, so that each device tests them.
    const uint64_t gemmWorkgroups = uint64_t(p.tiles) * (chunkSteps == 0 ? 1 : (kTiles + chunkSteps - 1) / chunkSteps);
    if (warps == 4 && (p.flags & shader::K_PAIRED_ROWS) == 0 && (emulated || (sms != 0 && gemmWorkgroups > 2 * sms)))
      p.flags |= shader::ROWS_UNPADDED;
    auto gemm = [&](Dispatch g, bool zeroedByPack) {
      if (chunkSteps == 0)
        return chunkDispatches(g, p, split, shader::COOPMAT_BK, constants, &Coopmat::FLAGS, constantFlags);
      // Zeroed by the pack, by the chunks where they may wait on each other (K_SPLIT_ZEROES), or a fill.
      const bool zeroesTiles = !zeroedByPack && splitChunksZero(device, defaults);
      ConvParams chunk = p;
      chunk.flags = (p.flags | shader::K_SPLIT | (zeroesTiles ? shader::K_SPLIT_ZEROES : 0u)) &
                    ~(shader::K_TWO_STEPS | shader::OUTPUT_M_QUADS);
      chunk.kBegin = 0, chunk.kLength = chunkSteps * shader::COOPMAT_BK;
      chunk.tileCounters = static_cast<uint32_t>(tableCountersOffset(kTensorSlots));
      g.params = bytesOf(chunk);
      g.groups = {p.tiles, (kTiles + chunkSteps - 1) / chunkSteps, 1};
      // The zeros' loop adds its passes; the wait is taken on no CPU device.
      g.loopPasses = loops.passes(1, chunkSteps) + (zeroesTiles ? splitZeroPasses(bm, bn, 32 * warps) : 0);
      g.tableCounterBytes = zeroesTiles ? uint64_t(p.tiles) * shader::SPLIT_TILE_WORDS * 4 : 0;
      constants.FLAGS = chunk.flags & constantFlags;
      g.specialization = shader::specializationOf(constants);
      if (zeroedByPack || zeroesTiles) return std::vector<Dispatch>{g};
      return std::vector<Dispatch>{planFill(kOutputSlot, 0, output.elementCount * 4, 0, device), g};
    };
    if (!packing) return gemm(d, false);
    // A filter flagged DML_TENSOR_FLAG_OWNED_BY_DML is packed once, by the
    // initializer, into the persistent resource; A (where packed) is packed
    // with each execution into the temporary resource.
    const bool persistentB = filter.owned;
    // Where A goes as the im2col matrix, whose k run (c, ky, kx) as a dense
    // filter's rows do, and those rows hold whole K steps from 16-byte
    // aligned addresses, the GEMM of few m tiles stages B from the filter
    // itself: the pack packs A alone (see kFilterRowsMaxMTiles). Likewise where A comes from the input
    // as it lies and the filter's rows run k (ky, kx, c) (a 1x1 kernel's dense rows, or channels
    // innermost): then no pack runs at all.
    const bool tapRows = p.filterStrides[1] == 1 && (p.kernelW == 1 || p.filterStrides[3] == p.groupChannels) &&
                         (p.kernelH == 1 || p.filterStrides[2] == uint64_t(p.kernelW) * p.groupChannels);
    const bool bFromFilter = !persistentB &&
                             ((aPacking == shader::A_IM2COL && p.mTiles <= kFilterRowsMaxMTiles &&
                               (p.flags & shader::FILTER_K_CONTIGUOUS) != 0) ||
                              (aFromInput && tapRows)) &&
                             (p.flags & shader::K_WHOLE_STEPS) != 0 && p.filterStrides[0] % 16 == 0 &&
                             filter.offsetAlignment % 16 == 0;
    if (bFromFilter) p.flags |= shader::B_FROM_FILTER;
    p.packedAOffset = 0;
    p.packedBOffset = persistentB ? 0 : aBytes;
    p.scratchSlot = temporarySlot(kTensorSlots);
    p.packedBSlot = persistentB ? persistentSlot(kTensorSlots) : temporarySlot(kTensorSlots);
    // The pack's items: A's 16-byte chunks, or its tiles of half a
    // workgroup's pixels x 32 channels or more (one workgroup each) where A
    // comes channels-last or from words, then B's.
    const bool channelsLast = aPacking == shader::A_CHANNELS_LAST;
    // A from whole words where each image's channel planes are (the pack's
    // _words variants): channels-last, or the im2col matrix of a 1x1 kernel
    // of stride 1 without padding (the input channels-last, a pixel's
    // channels a row) in groups of whole K steps. Tiles of the input's
    // pixels, not the padded extent's; channels-last padding then an item
    // per 16 bytes.
    const bool im2colOfPixels = aPacking == shader::A_IM2COL && p.kernelH == 1 && p.kernelW == 1 && p.strideY == 1 &&
                                p.strideX == 1 && p.padY == 0 && p.padX == 0 && p.outputH == p.inputH &&
                                p.outputW == p.inputW && p.groupChannels % shader::COOPMAT_BK == 0;
    const bool planeWords = (channelsLast || im2colOfPixels) && p.inputStrides[3] == 1 &&
                            (p.inputH == 1 || p.inputStrides[2] == p.inputW) &&
                            (uint64_t(p.inputH) * p.inputW) % 4 == 0 && p.inputStrides[0] % 4 == 0 &&
                            p.inputStrides[1] % 4 == 0 && input.offsetAlignment >= 4;
    // A tile takes half the pack's workgroup in pixels: 32 channels-last
    // (shader::PACK_WORKGROUP_CHANNELS_LAST), 128 for the im2col matrix.
    // Channels-last, a tile takes 64 or 128 channels (more loads in flight
    // per invocation) where they divide C and the tiles still number two
    // per multiprocessor; the im2col matrix's tiles keep 32 (one block of a
    // K step each: wider ones, whose stores spread over several blocks,
    // were slower) (bench/results/pack_pass.md).
    static_assert(shader::PACK_WORKGROUP_CHANNELS_LAST / 2 * (128 / 4 + 1) * 4 <=
                          std::min(shader::coopmatSharedBytes(4, 64), shader::coopmatSharedBytes(8, 64)) &&
                      shader::PACK_WORKGROUP / 2 * (32 / 4 + 1) * 4 <=
                          std::min(shader::coopmatSharedBytes(4, 64), shader::coopmatSharedBytes(8, 64)),
                  "a pack tile takes no more shared memory than the GEMM after it");
    const uint32_t packWorkgroup = channelsLast ? shader::PACK_WORKGROUP_CHANNELS_LAST : shader::PACK_WORKGROUP;
    const uint64_t tilePixels = packWorkgroup / 2;
    const uint64_t pixelTiles = planeWords ? out[0] * ((uint64_t(p.inputH) * p.inputW + tilePixels - 1) / tilePixels)
                                           : (channelsLastA / in[1] + tilePixels - 1) / tilePixels;
    uint32_t channelRun = 32;
    for (const uint32_t run : {64u, 128u})
      if (planeWords && channelsLast && in[1] % run == 0 &&
          pixelTiles * (in[1] / run) >= 2 * uint64_t(device.multiprocessors))
        channelRun = run;
    p.aChunks = static_cast<uint32_t>(aFromInput                   ? 0
                                      : channelsLast || planeWords ? pixelTiles * (in[1] / channelRun)
                                                                   : aBytes / 16);
    const bool packsB = !persistentB && !bFromFilter;
    p.totalChunks = static_cast<uint32_t>(p.aChunks + (packsB ? packedB / 16 : 0));  // <= kMaxPackedBytes / 16
    d.params = bytesOf(p);
    d.scratchBytes = packsB ? scratchBytes : aBytes;
    // A pack that runs with each execution also zeroes the output for a
    // split K: one command and one barrier fewer (bench/results/split_k.md).
    const bool executionPack = packsA || packsB;
    const bool zeroInPack = chunkSteps != 0 && executionPack && output.elementCount <= UINT32_MAX;
    std::vector<Dispatch> dispatches = gemm(d, zeroInPack);
    // A pack dispatch: `pp`'s chunks with A packed as `aPack` says.
    auto packDispatch = [&](const ConvParams& pp, uint32_t aPack) {
      Dispatch pack;
      // The geometry as specialization constants, for the driver to fold.
      auto packConstants = withGeometry<shader::ConvolutionIntegerPackConstants>(pp);
      packConstants.FLAGS &=  // the GEMM's alone
          ~(shader::B_FROM_FILTER | shader::K_PAIRED_ROWS | shader::A_FROM_INPUT | shader::A_PAIRED_CHUNKS |
            shader::ROWS_UNPADDED);
      packConstants.WORKGROUP_SIZE = packWorkgroup;
      packConstants.BM = bm;
      packConstants.BN = bn;
      packConstants.OUTPUT_H = pp.outputH;
      packConstants.OUTPUT_W = pp.outputW;
      packConstants.INPUT_H = pp.inputH;
      packConstants.INPUT_W = pp.inputW;
      packConstants.KG = pp.groupK;
      packConstants.M_TILES = pp.mTiles;
      packConstants.N_TILES = pp.nTiles;
      packConstants.A_PACKING = aPack;
      const bool words = planeWords && pp.aChunks != 0;
      const bool tiles = aPack == shader::A_CHANNELS_LAST || words;
      const bool rows = shader::packARows(aPack, kTiles, mTiles) && !words;
      // A by rows reads each tap row's bytes as the aligned words around them.
      if (rows && wordRows && p.inputStrides[3] == 1) packConstants.FLAGS |= shader::INPUT_WORD_ROWS;
      pack.kernel = convolutionIntegerPackKernel(indexBits, words ? 1 : 0);
      packConstants.CHANNEL_RUN = channelRun;
      pack.specialization = shader::specializationOf(packConstants);
      // Its loops walk 16-byte chunks (at most kMaxPackedBytes / 16 of them)
      // over the grid, channels-last A's tiles first over its workgroups; A
      // by rows takes one item per row's chunks, B from spans one per tap's;
      // then the output's zeros, 4 words per item.
      const uint32_t taps = pp.kernelH * pp.kernelW;
      const bool spans = shader::packBSpans(aPack, taps, packConstants.FLAGS);
      const uint64_t aTiles = tiles ? pp.aChunks : 0, aRowItems = rows ? pp.aChunks / (2 * pp.kTiles) : 0;
      const uint64_t chunks = pp.totalChunks - (tiles || rows ? pp.aChunks : 0);
      const uint64_t bItems = spans ? chunks / taps : chunks, zeroItems = (pp.outputZeroWords + uint64_t(3)) / 4;
      const uint64_t paddedH = VKDML_PADDED_EXTENT(uint64_t(pp.outputH), pp.strideY, pp.kernelH, pp.dilationY);
      const uint64_t paddedW = VKDML_PADDED_EXTENT(uint64_t(pp.outputW), pp.strideX, pp.kernelW, pp.dilationX);
      auto inside = [](uint64_t pad, uint64_t size, uint64_t padded) {
        return std::min(pad + size, padded) - std::min<uint64_t>(pad, padded);
      };
      const uint64_t insideH = inside(pp.padY, pp.inputH, paddedH), insideW = inside(pp.padX, pp.inputW, paddedW);
      const uint64_t borderItems =
          words && aPack == shader::A_CHANNELS_LAST
              ? out[0] * ((paddedH - insideH) * paddedW + insideH * (paddedW - insideW)) * (in[1] / 16)
              : 0;
      const uint64_t items = std::max({aRowItems, bItems, zeroItems, borderItems});
      pack.groups = {gridGroups(aTiles * packWorkgroup + items, packWorkgroup, device), 1, 1};
      pack.params = bytesOf(pp);
      const uint64_t groupsX = pack.groups[0], invocations = groupsX * packWorkgroup;
      auto passes = [&](uint64_t n) { return loopPasses((n + invocations - 1) / invocations); };
      pack.loopPasses = loopPasses((aTiles + groupsX - 1) / groupsX) + passes(borderItems) + passes(aRowItems) +
                        passes(bItems) + passes(zeroItems);
      return pack;
    };
    if (executionPack) {
      ConvParams packParams = p;
      if (zeroInPack) packParams.outputZeroWords = static_cast<uint32_t>(output.elementCount);
      Dispatch pack = packDispatch(packParams, aPacking);
      pack.scratchBytes = d.scratchBytes;
      dispatches.insert(dispatches.begin(), pack);
    }
    if (persistentB) {
      // The initializer packs B alone, in the K order of A's packing
      // (channels-last A takes k tap by tap). It binds the owned filter
      // alone: it reads no input zero point.
      ConvParams packParams = p;
      packParams.flags &= ~shader::HAS_INPUT_ZERO_POINT;
      packParams.aChunks = 0;
      packParams.totalChunks = static_cast<uint32_t>(packedB / 16);
      Dispatch pack = packDispatch(packParams, aPacking);
      pack.initializer = true;
      pack.persistentBytes = packedB;
      pack.packsOwnedSlot = 2;
      dispatches.insert(dispatches.begin(), pack);
    }
    return dispatches;
  }

  // The dot-product path's own kernel, register tiles over both operands
  // staged through shared memory (chooseDotTiles), its geometry folded
  // (specialization constants), for all but the narrowest GEMMs; else
  // convolution_integer.comp.
  const bool dotKernel =
      path == ConvolutionPath::DotProduct &&
      tiledDotKernel(options, defaults, device, p.M, p.groupOutputChannels, p.groupK, contiguousRows);
  // Every tap of a quad of contiguous rows starts on a word boundary.
  const bool wordTaps = contiguousRows && p.padX % 4 == 0 && (p.kernelW == 1 || uint64_t(p.dilationX) % 4 == 0);
  const TileShape t = dotKernel ? chooseDotTiles(p.M, p.groupOutputChannels, p.groupK, device, defaults, wordTaps)
                                : chooseTiles(p.M, p.groupOutputChannels, p.groupK, device);
  p.mTiles = ceilDiv32(p.M, t.bm);
  p.nTiles = ceilDiv32(p.groupOutputChannels, t.bn);
  p.tiles = p.mTiles * p.nTiles * groups;  // <= output elements / (BM*BN) * ... < 2^32
  const bool inputSigned = input.dataType == DML_TENSOR_DATA_TYPE_INT8;
  const bool filterSigned = filter.dataType == DML_TENSOR_DATA_TYPE_INT8;
  const uint32_t kSteps = ceilDiv32(p.groupK, t.bk);
  // The shader loops over any further tiles and, chunk by chunk, over K;
  // SPLIT carries the split's flags alone (the others are read from ConvParams).
  if (dotKernel) {
    d.kernel = convolutionIntegerDotKernel(inputSigned, filterSigned, indexBits);
    using Dot = shader::ConvolutionIntegerDotConstants;
    const Dot dc = tileConstants(t, withGeometry<Dot>(p));
    return chunkDispatches(d, p, splitGemm(dotLoops(t), p.tiles, kSteps, device), t.bk, dc, &Dot::SPLIT,
                           shader::SPLIT_FLAGS);
  }
  const bool dot = path == ConvolutionPath::DotProduct;
  d.kernel = convolutionIntegerKernel(inputSigned, filterSigned, indexBits, dot);
  using Portable = shader::ConvolutionIntegerConstants;
  Portable constants = tileConstants<Portable>(t);
  constants.ROW = t.rowWords();
  return chunkDispatches(d, p, splitGemm(portableLoops(t, dot), p.tiles, kSteps, device), t.bk, constants,
                         &Portable::SPLIT, shader::SPLIT_FLAGS);
}

}  // namespace detail
}  // namespace vkdml
