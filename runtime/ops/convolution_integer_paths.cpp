// DML_CONVOLUTION_INTEGER's paths (convolution_integer_plan.hpp): what each
// path needs of the device, the path a compile takes, which operands of the
// cooperative-matrix GEMM are packed first, and the Device's defaults for
// both from the environment.
#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "convolution_integer_plan.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr const char* kOp = kConvolutionIntegerOp;

// Why the device cannot run `path`, or empty.
constexpr uint32_t kEmulatedMinSubgroup = 4;

// The real matrices' warps are 32-lane subgroups: the device's default, or
// a size its compute pipelines may require (vk/pipeline.cpp asks for it).
bool warpSubgroups(const DeviceInfo& device) {
  const uint32_t lanes = shader::COOPMAT_SUBGROUP;
  return device.subgroupSize == lanes || (device.minSubgroupSize <= lanes && lanes <= device.maxSubgroupSize);
}

std::string missingFor(ConvolutionPath path, const DeviceInfo& device) {
  switch (path) {
    case ConvolutionPath::DotProduct:
      return device.integerDotProduct ? "" : "shaderIntegerDotProduct (VK_KHR_shader_integer_dot_product)";
    case ConvolutionPath::CooperativeMatrix:
    case ConvolutionPath::CooperativeMatrixKHR:
      if (path == ConvolutionPath::CooperativeMatrix && !device.cooperativeMatrixInt8)
        return "an int8 16x16x32 subgroup cooperative matrix (VK_NV_cooperative_matrix with shaderInt8 and "
               "vulkanMemoryModel)";
      if (path == ConvolutionPath::CooperativeMatrixKHR &&
          (!device.cooperativeMatrixKHRInt8 || !khrFragment(device.cooperativeMatrixKHRInt8Shapes)))
        return "an int8 subgroup cooperative matrix of 16x16x32, 16x8x32, 16x16x16 or 8x16x32 "
               "(VK_KHR_cooperative_matrix with shaderInt8 and vulkanMemoryModel)";
      if (!device.integerDotProduct) return "shaderIntegerDotProduct (its byte sums are packed dot products)";
      [[fallthrough]];
    case ConvolutionPath::CooperativeMatrixEmulated:
      if (device.maxComputeSharedMemorySize < coopmatSharedBytes(8, 128))
        return concat(coopmatSharedBytes(8, 128), " bytes of shared memory (it has ", device.maxComputeSharedMemorySize,
                      ")");
      // The kernel's warps are subgroups: 32 lanes by default or on request
      // (AMD's wave64 devices); Intel's 8- or 16-lane ones are not taken yet.
      if (path != ConvolutionPath::CooperativeMatrixEmulated && !warpSubgroups(device))
        return concat("32-lane subgroups (it has ", device.subgroupSize, ", and can be asked for ",
                      device.minSubgroupSize, " to ", device.maxSubgroupSize,
                      "; its warps are subgroups, so 8- and 16-lane ones are not taken yet)");
      // Tested with 4 to 64 lanes; lavapipe's LLVM crashes compiling it for one-lane subgroups.
      if (device.subgroupSize < kEmulatedMinSubgroup)
        return concat("subgroups of at least ", kEmulatedMinSubgroup, " lanes (it has ", device.subgroupSize, ")");
      if (!device.subgroupShuffleRelative) return "relative subgroup shuffles in compute shaders";
      return "";
    default:
      return "";
  }
}

}  // namespace

// The path a compile takes: the option, else the Device's default
// ($VKDML_CONVOLUTION_PATH), else the fastest the device has for this shape,
// as measured (bench/results/standing.md): cooperative matrices where the GEMM has at
// least 64 columns and the input's rows are read as whole words
// (contiguousRows), or are byte gathers (strided x, odd widths) whose im2col
// matrix fits the packing scratch (operandsPack, as for a 7x7 stride-2
// stem), and at least kCoopmatMinRows output pixels (a tile holds 128: at
// batch 1, ResNet-50's 7x7 layers, 49 rows, still ran faster on them than
// through dot products); otherwise the packed dot products, where the
// device says they are accelerated or is a CPU (lavapipe does not call
// its dot products accelerated, yet the dot kernel ran faster there:
// bench/results/lavapipe_onnxruntime.md).
constexpr uint32_t kCoopmatMinRows = 48;

ConvolutionPath choosePath(const CompileOptions& options, const PlanDefaults& defaults, const DeviceInfo& device,
                           uint32_t M, uint32_t Ng, uint32_t Kg, bool contiguousRows, bool operandsPack) {
  ConvolutionPath path = options.convolutionPath;
  const char* field = "CompileOptions.convolutionPath";
  if (path == ConvolutionPath::Auto && defaults.convolutionPath != ConvolutionPath::Auto) {
    path = defaults.convolutionPath;
    field = "VKDML_CONVOLUTION_PATH";
  }
  if (path != ConvolutionPath::Auto) {
    const std::string missing = missingFor(path, device);
    if (!missing.empty())
      throwUnsupported(kOp, field,
                       concat("the ", toString(path), " path needs ", missing, ", which ", device.name, " lacks"));
    return path;
  }
  // NV's extension where the device has both: the KHR kernel is the same
  // one translated (bench/results/khr_cooperative_matrix.md).
  if ((contiguousRows || operandsPack) && Ng >= 64 && Kg >= 32 && M >= kCoopmatMinRows)
    for (ConvolutionPath coopmat : {ConvolutionPath::CooperativeMatrix, ConvolutionPath::CooperativeMatrixKHR})
      if (missingFor(coopmat, device).empty()) return coopmat;
  if (device.integerDotProduct &&
      (device.integerDotProduct4x8BitPackedAccelerated || device.type == VK_PHYSICAL_DEVICE_TYPE_CPU))
    return ConvolutionPath::DotProduct;
  return ConvolutionPath::Portable;
}

DeviceInfo::MatrixShape coopmatFragment(ConvolutionPath path, const CompileOptions& options, const DeviceInfo& device) {
  const DeviceInfo::MatrixShape& asked = options.matrixShape;
  const bool khr = path == ConvolutionPath::CooperativeMatrixKHR;
  if (asked.m == 0 && asked.n == 0 && asked.k == 0) {
    const DeviceInfo::MatrixShape* listed = khrFragment(device.cooperativeMatrixKHRInt8Shapes);
    return khr && listed ? *listed : kFragmentShapes[0];  // the path was checked: the device lists one
  }
  const auto shape = concat(asked.m, "x", asked.n, "x", asked.k);
  auto among = [&](const auto& shapes) {
    return std::any_of(std::begin(shapes), std::end(shapes),
                       [&](const DeviceInfo::MatrixShape& s) { return sameShape(s, asked); });
  };
  const bool nv = path == ConvolutionPath::CooperativeMatrix;
  if (nv ? !sameShape(asked, kFragmentShapes[0]) : !among(kFragmentShapes))
    throwInvalid(kOp, "CompileOptions.matrixShape",
                 concat("must be 0x0x0 or, on the ", toString(path), " path, ",
                        nv ? "16x16x32" : "16x16x32, 16x8x32, 16x16x16 or 8x16x32", ", not ", shape));
  if (khr && !among(device.cooperativeMatrixKHRInt8Shapes))
    throwUnsupported(kOp, "CompileOptions.matrixShape",
                     concat("the coopmat-khr path at ", shape, " needs the device to list that int8 shape, which ",
                            device.name, " does not"));
  return asked;
}

namespace {
// Which operands of the cooperative-matrix GEMM are packed into scratch
// first (convolution_integer_pack.comp): the option, else the Device's
// default ($VKDML_CONVOLUTION_PACKING), else as measured (bench/results/packing.md):
// the input channels-last for a kernel wider than 1x1 over a K of 256 or
// more where the GEMM has more than kChannelsLastMinRows rows, one tile's
// (3x3 layers at batch 32, strided or not, 7x7 ones included, and batch
// 1's from 196 rows on, 0.2-0.7 µs faster than both on the H200 since the
// pack reads whole words; over 49 rows both stayed 0.2-0.3 µs ahead:
// bench/results/packing.md, 2026-11-29) and the groups' channels allow it; both
// where A's rows are byte gathers (a 7x7 stride-2 stem) or the filter is
// large (a GEMM with N*K of 2^24 or more); otherwise none for a 1x1 kernel
// or a short K (A's rows are then whole words of consecutive channels), and
// for a deeper kernel both where the GEMM has few rows (M <=
// kPackBothMaxRows: batch 1, late layers), else the filter alone.
// First, where the plan may take tiles of 64 x 64 (squareTiles: the device
// counts its multiprocessors), channels-last A for such kernels whatever
// the rows: batch 1's 3x3 layers of 784 and 49 rows, gathered or packed as
// the im2col matrix, took 0.92-0.95 of the time on the H200; and nothing
// packed for a 1x1 kernel over at most kSquareGatherMaxRows rows, even of
// byte gathers (batch 1's 1x1 layers over 7x7 images, 0.95 of the time,
// bench/results/batch1_narrow_tiles.md, 2026-12-01; its stride-2 layer onto
// 14x14, 196 rows, 0.94: bench/results/packing.md, 2026-12-04). Then few rows over
// kGatherMinSteps to kGatherMaxSteps K steps (batch 1's layers from 28x28
// on, 1x1 or 3x3) pack nothing where A's rows are whole words: the GEMM's
// own gathers cost less there than a pack dispatch (about 4 µs however
// small), where the filter is not large; with fewer steps, or more (which
// split K, and whose pack zeroes the output instead of a fill), or more
// rows, packing stays ahead (bench/results/packing.md). Where A's rows are
// byte gathers (strided, or 7x7 images), the pack's dispatch takes the
// place of the split's fill and the GEMM stages whole chunks: faster on the
// H200 (bench/results/packing.md, 2026-11-28). Not for a kernel wider than
// 1x1 into more than 128 output channels: packed, its A takes the few-row
// tiles of 64 columns (which gathered 3x3 rows do not), measured 0.83x the
// time on an H100 (bench/results/batch1_narrow_tiles.md).
constexpr uint32_t kChannelsLastMinRows = shader::COOPMAT_BM;
constexpr uint32_t kSquareGatherMaxRows = 2 * shader::COOPMAT_BM;
constexpr uint32_t kPackBothMaxRows = 32768;
constexpr uint32_t kGatherMaxRows = 1024;
constexpr uint32_t kGatherMaxWideColumns = 128;
constexpr uint32_t kGatherMinSteps = 16, kGatherMaxSteps = 72;
// Last, an owned filter (DML_TENSOR_FLAG_OWNED_BY_DML), which the
// initializer packs once, costs an execution no pack: where the rules above
// pack nothing, the filter is packed from a K of kOwnedFilterMinK on (with
// 2 K steps the GEMM's own gathers stayed ahead) (bench/results/owned_weights.md),
// except over kSixteenWarpsMinTiles m tiles or more of at most 128 output
// channels: gathered, those run more warps per multiprocessor (16-warp
// tiles of 256 x 128, 4-warp ones of 128 x 64) than the packed filter's
// register ring allows, and were faster on the H200 (batch 32's 1x1
// 256->128 56x56 layer 47.4 µs against 62.7; bench/results/owned_weights.md).
constexpr uint32_t kOwnedFilterMinK = 128;
// Nor where the 64 x 64 tiles are in reach over at most kOwnedGatherMaxRows
// rows: those tiles, A gathered and B from the filter's rows, beat the
// packed filter on every batch-1 1x1 layer of ResNet-50 with a K of 128 or
// more on the H200 (3136 rows at most there; batch 32's start at 6272), and
// an owned filter then takes the packings measured for a plain one
// (bench/results/owned_weights.md, 2026-12-02).
constexpr uint32_t kOwnedGatherMaxRows = 4096;

ConvolutionPacking measuredPacking(bool contiguousRows, uint32_t M, uint32_t Ng, uint32_t Kg, bool oneByOne,
                                   bool channelsLastSteps, bool squareTiles) {
  const uint32_t steps = ceilDiv32(Kg, shader::COOPMAT_BK);
  const bool largeFilter = uint64_t(Ng) * Kg >= (uint64_t(1) << 24);
  const bool channelsLast = !oneByOne && Kg >= 256 && channelsLastSteps;
  if (channelsLast && squareTiles) return ConvolutionPacking::ChannelsLast;
  if (oneByOne && squareTiles && M <= kSquareGatherMaxRows && !largeFilter) return ConvolutionPacking::None;
  if (M <= kGatherMaxRows && steps >= kGatherMinSteps && steps <= kGatherMaxSteps && !largeFilter && contiguousRows &&
      (oneByOne || Ng <= kGatherMaxWideColumns))
    return ConvolutionPacking::None;
  if (channelsLast && M > kChannelsLastMinRows) return ConvolutionPacking::ChannelsLast;
  if (!contiguousRows || largeFilter) return ConvolutionPacking::Both;
  if (oneByOne || Kg < 256) return ConvolutionPacking::None;
  return M <= kPackBothMaxRows ? ConvolutionPacking::Both : ConvolutionPacking::Filter;
}
}  // namespace

ConvolutionPacking choosePacking(const CompileOptions& options, const PlanDefaults& defaults, bool contiguousRows,
                                 uint32_t M, uint32_t Ng, uint32_t Kg, bool oneByOne, bool channelsLastSteps,
                                 bool filterOwned, bool squareTiles, bool inputChannelsLast) {
  if (options.convolutionPacking != ConvolutionPacking::Auto) return options.convolutionPacking;
  if (defaults.convolutionPacking != ConvolutionPacking::Auto) return defaults.convolutionPacking;
  // An input whose channels lie innermost, as the GEMM reads it in place
  // (shader::A_FROM_INPUT), costs no pack of A: channels-last for every shape.
  if (inputChannelsLast && channelsLastSteps) return ConvolutionPacking::ChannelsLast;
  // $VKDML_COOPMAT_ROWS at 96 or 128 takes the 64 x 64 tiles out of reach, and with them their packings.
  const bool square = squareTiles && (defaults.coopmatRows == 0 ||
                                      defaults.coopmatRows == shader::coopmatBM(4, shader::COOPMAT_HALF_FM));
  const ConvolutionPacking packs = measuredPacking(contiguousRows, M, Ng, Kg, oneByOne, channelsLastSteps, square);
  // An owned filter costs the pack nothing, so channels-last A pays for
  // kernels wider than 1x1 whatever the rows (batch 1's 3x3 layers of
  // 28x28 and 7x7 outputs: bench/results/owned_weights.md).
  if (filterOwned && !oneByOne && channelsLastSteps && Kg >= 256) return ConvolutionPacking::ChannelsLast;
  const bool manyNarrowTiles =
      Ng <= 128 && (uint64_t(M) + shader::COOPMAT_BM - 1) / shader::COOPMAT_BM >= kSixteenWarpsMinTiles;
  if (packs == ConvolutionPacking::None && filterOwned && Kg >= kOwnedFilterMinK && !manyNarrowTiles &&
      !(square && M <= kOwnedGatherMaxRows))
    return ConvolutionPacking::Filter;
  return packs;
}

std::vector<ConvolutionPath> convolutionPaths(const DeviceInfo& device) {
  std::vector<ConvolutionPath> paths{ConvolutionPath::Portable};
  for (ConvolutionPath path : {ConvolutionPath::DotProduct, ConvolutionPath::CooperativeMatrix,
                               ConvolutionPath::CooperativeMatrixEmulated, ConvolutionPath::CooperativeMatrixKHR})
    if (missingFor(path, device).empty()) paths.push_back(path);
  return paths;
}

void convolutionDefaultsFromEnvironment(PlanDefaults& defaults) {
  if (const char* env = std::getenv("VKDML_CONVOLUTION_PATH"); env && *env) {
    bool known = false;
    for (ConvolutionPath path : {ConvolutionPath::Auto, ConvolutionPath::Portable, ConvolutionPath::DotProduct,
                                 ConvolutionPath::CooperativeMatrix, ConvolutionPath::CooperativeMatrixEmulated,
                                 ConvolutionPath::CooperativeMatrixKHR})
      if (std::string(env) == toString(path)) {
        defaults.convolutionPath = path;
        known = true;
      }
    if (!known)
      throwInvalid("Device", "VKDML_CONVOLUTION_PATH",
                   concat("must be auto, portable, dot, coopmat, coopmat-emulated or coopmat-khr, not \"", env, "\""));
  }
  if (const char* env = std::getenv("VKDML_DOT_KERNEL"); env && *env) {
    const std::string value = env;
    if (value == "auto")
      defaults.dotKernel = DotKernel::Auto;
    else if (value == "portable")
      defaults.dotKernel = DotKernel::Portable;
    else if (value == "tiled")
      defaults.dotKernel = DotKernel::Tiled;
    else
      throwInvalid("Device", "VKDML_DOT_KERNEL", concat("must be auto, portable or tiled, not \"", value, "\""));
  }
  if (const char* env = std::getenv("VKDML_DOT_TILE"); env && *env) {
    // BMxBNxBKxTMxTN, or BMxBNxTMxTN (BK chosen per shape).
    std::vector<uint32_t> v;
    const std::string value = env;
    size_t at = 0;
    bool digits = true;
    while (digits && at <= value.size()) {
      const size_t end = std::min(value.find('x', at), value.size());
      digits = end > at && end - at <= 4 && value.find_first_not_of("0123456789", at) >= end;
      if (digits) v.push_back(static_cast<uint32_t>(std::stoul(value.substr(at, end - at))));
      at = end + 1;
    }
    if (!digits || (v.size() != 4 && v.size() != 5))
      throwInvalid("Device", "VKDML_DOT_TILE", concat("must be BMxBNxBKxTMxTN or BMxBNxTMxTN, not \"", value, "\""));
    if (v.size() == 4) v.insert(v.begin() + 2, 0);
    const TileShape t{v[0], v[1], v[2], v[3], v[4]};
    const std::string invalid = dotTileInvalid(t);
    if (!invalid.empty()) throwInvalid("Device", "VKDML_DOT_TILE", concat(invalid, ", not \"", value, "\""));
    defaults.dotTile = {t.bm, t.bn, t.bk, t.tm, t.tn};
  }
  if (const char* env = std::getenv("VKDML_SPLIT_ZEROS"); env && *env) {
    const std::string value = env;
    if (value != "fill" && value != "chunks")
      throwInvalid("Device", "VKDML_SPLIT_ZEROS", concat("must be fill or chunks, not \"", value, "\""));
    defaults.splitZeros = value == "fill" ? PlanDefaults::SplitZeros::Fill : PlanDefaults::SplitZeros::Chunks;
  }
  if (const char* env = std::getenv("VKDML_COOPMAT_ROWS"); env && *env) {
    const std::string value = env;
    if (value != "64" && value != "96" && value != "128")
      throwInvalid("Device", "VKDML_COOPMAT_ROWS", concat("must be 64, 96 or 128, not \"", value, "\""));
    defaults.coopmatRows = uint32_t(std::stoul(value));
  }
  if (const char* env = std::getenv("VKDML_CONVOLUTION_PACKING"); env && *env) {
    const std::string value = env;
    if (value == "0")
      defaults.convolutionPacking = ConvolutionPacking::None;
    else if (value == "b")
      defaults.convolutionPacking = ConvolutionPacking::Filter;
    else if (value == "ab")
      defaults.convolutionPacking = ConvolutionPacking::Both;
    else if (value == "nhwc")
      defaults.convolutionPacking = ConvolutionPacking::ChannelsLast;
    else
      throwInvalid("Device", "VKDML_CONVOLUTION_PACKING", concat("must be 0, b, ab or nhwc, not \"", value, "\""));
  }
}

}  // namespace detail
}  // namespace vkdml
