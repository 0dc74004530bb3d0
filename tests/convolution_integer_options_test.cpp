// DML_CONVOLUTION_INTEGER's validation rules, and the options that choose its
// path and its packing (CompileOptions, the environment, refusals).
#include <cstdlib>

#include "convolution_integer.hpp"
#include "interface/convolution_integer.h"  // the cooperative-matrix kernel's shared memory
#include "support.hpp"

using test::Tensor;
using namespace test::conv;

TEST_CASE("convolution_integer: validation rules") {
  Tensor input(U8, {1, 4, 5, 5}), filter(U8, {6, 2, 3, 3}), output(I32, {1, 6, 5, 5});
  Tensor xz(U8, {1, 1, 1, 1}), wz(U8, {1, 6, 1, 1});
  Conv conv{{1, 1}, {1, 1}, {1, 1}, {1, 1}, 2};
  REQUIRE_FALSE(vkdml::validate(conv.make(input, &xz, filter, &wz, output)).has_value());
  vkdml::Operator op = test::device().createOperator(conv.op);
  CHECK(op.inputCount() == 4);  // Input, InputZeroPoint, Filter, FilterZeroPoint
  CHECK(op.outputCount() == 1);
  CHECK(std::string(op.name()) == "DML_CONVOLUTION_INTEGER");

  SUBCASE("required tensors are not null") {
    conv.make(input, &xz, filter, &wz, output);
    conv.desc.FilterTensor = nullptr;
    test::expectInvalid(conv.op, "FilterTensor", {"null"});
  }
  SUBCASE("InputTensor has 3 or 4 dimensions") {
    Tensor in5(U8, {1, 4, 5, 5, 1});
    test::expectInvalid(conv.make(in5, &xz, filter, &wz, output), "InputTensor.DimensionCount", {"3..4", "5"});
    Tensor in2(U8, {1, 4});
    test::expectInvalid(conv.make(in2, &xz, filter, &wz, output), "InputTensor.DimensionCount", {"3..4", "2"});
  }
  SUBCASE("FilterTensor has the input's DimensionCount") {
    Tensor f3(U8, {6, 2, 3});
    test::expectInvalid(conv.make(input, &xz, f3, &wz, output), "FilterTensor.DimensionCount", {"4", "3"});
  }
  SUBCASE("OutputTensor has the input's DimensionCount") {
    Tensor o3(I32, {1, 6, 25});
    test::expectInvalid(conv.make(input, &xz, filter, &wz, o3), "OutputTensor.DimensionCount", {"4", "3"});
  }
  SUBCASE("DimensionCount is the tensors' DimensionCount - 2") {
    Conv c1{{1}, {1}, {1}, {1}, 2};
    test::expectInvalid(c1.make(input, &xz, filter, &wz, output), "DimensionCount", {"2", "1"});
  }
  SUBCASE("InputTensor is UINT8 or INT8") {
    Tensor in16(DML_TENSOR_DATA_TYPE_INT16, {1, 4, 5, 5});
    Tensor xz16(DML_TENSOR_DATA_TYPE_INT16, {1, 1, 1, 1});
    test::expectInvalid(conv.make(in16, &xz16, filter, &wz, output), "InputTensor.DataType", {"INT16"});
  }
  SUBCASE("FilterTensor is UINT8 or INT8") {
    Tensor f32(DML_TENSOR_DATA_TYPE_FLOAT32, {6, 2, 3, 3});
    test::expectInvalid(conv.make(input, &xz, f32, nullptr, output), "FilterTensor.DataType", {"FLOAT32"});
  }
  SUBCASE("InputZeroPointTensor has the input's type") {
    Tensor xzI8(I8, {1, 1, 1, 1});
    test::expectInvalid(conv.make(input, &xzI8, filter, &wz, output), "InputZeroPointTensor.DataType",
                        {"INT8", "UINT8"});
  }
  SUBCASE("FilterZeroPointTensor has the filter's type") {
    Tensor wzI8(I8, {1, 6, 1, 1});
    test::expectInvalid(conv.make(input, &xz, filter, &wzI8, output), "FilterZeroPointTensor.DataType",
                        {"INT8", "UINT8"});
  }
  SUBCASE("OutputTensor is INT32") {
    Tensor outU32(DML_TENSOR_DATA_TYPE_UINT32, {1, 6, 5, 5});
    test::expectInvalid(conv.make(input, &xz, filter, &wz, outU32), "OutputTensor.DataType", {"INT32", "UINT32"});
  }
  SUBCASE("parameter arrays are not null") {
    const char* names[] = {"Strides", "Dilations", "StartPadding", "EndPadding"};
    for (int i = 0; i < 4; ++i) {
      CAPTURE(names[i]);
      conv.make(input, &xz, filter, &wz, output);
      const UINT** arrays[] = {&conv.desc.Strides, &conv.desc.Dilations, &conv.desc.StartPadding,
                               &conv.desc.EndPadding};
      *arrays[i] = nullptr;
      test::expectInvalid(conv.op, names[i], {"null"});
    }
  }
  SUBCASE("Strides >= 1") {
    conv.strides = {1, 0};
    test::expectInvalid(conv.make(input, &xz, filter, &wz, output), "Strides[1]", {"0"});
  }
  SUBCASE("Dilations >= 1") {
    conv.dilations = {0, 1};
    test::expectInvalid(conv.make(input, &xz, filter, &wz, output), "Dilations[0]", {"0"});
  }
  SUBCASE("GroupCount >= 1") {
    conv.groups = 0;
    test::expectInvalid(conv.make(input, &xz, filter, &wz, output), "GroupCount", {"0"});
  }
  SUBCASE("GroupCount divides the input channels") {
    conv.groups = 3;
    Tensor f3(U8, {6, 1, 3, 3});
    test::expectInvalid(conv.make(input, &xz, f3, &wz, output), "GroupCount", {"4", "3"});
  }
  SUBCASE("GroupCount divides the output channels") {
    conv.groups = 4;
    Tensor f5(U8, {5, 1, 3, 3}), o5(I32, {1, 5, 5, 5}), wz5(U8, {1, 5, 1, 1});
    test::expectInvalid(conv.make(input, &xz, f5, &wz5, o5), "GroupCount", {"5", "4"});
  }
  SUBCASE("the filter's channels are C / GroupCount") {
    Tensor f4(U8, {6, 4, 3, 3});
    test::expectInvalid(conv.make(input, &xz, f4, &wz, output), "FilterTensor.Sizes[1]", {"2", "4"});
  }
  SUBCASE("InputZeroPointTensor sizes are all 1") {
    Tensor xz2(U8, {1, 2, 1, 1});
    test::expectInvalid(conv.make(input, &xz2, filter, &wz, output), "InputZeroPointTensor.Sizes[1]", {"1"});
  }
  SUBCASE("the zero points have 1 to 4 dimensions, the same for both") {
    Tensor xz5(U8, {1, 1, 1, 1, 1}), wz5(U8, {1, 6, 1, 1, 1});
    test::expectInvalid(conv.make(input, &xz5, filter, nullptr, output), "InputZeroPointTensor.DimensionCount",
                        {"1..4", "5"});
    test::expectInvalid(conv.make(input, nullptr, filter, &wz5, output), "FilterZeroPointTensor.DimensionCount",
                        {"1..4", "5"});
    Tensor xz1(U8, {1});
    test::expectInvalid(conv.make(input, &xz1, filter, &wz, output), "FilterZeroPointTensor.DimensionCount",
                        {"InputZeroPointTensor.DimensionCount 1", "not 4"});
    Tensor wz1(U8, {6});
    CHECK_FALSE(vkdml::validate(conv.make(input, &xz1, filter, &wz1, output)).has_value());
    CHECK_FALSE(vkdml::validate(conv.make(input, &xz1, filter, nullptr, output)).has_value());
  }
  SUBCASE("FilterZeroPointTensor is per tensor or per output channel") {
    Tensor wz3(U8, {1, 3, 1, 1});
    test::expectInvalid(conv.make(input, &xz, filter, &wz3, output), "FilterZeroPointTensor.Sizes[1]",
                        {"6", "{1,3,1,1}"});
    Tensor wzOther(U8, {1, 6, 2, 1});
    test::expectInvalid(conv.make(input, &xz, filter, &wzOther, output), "FilterZeroPointTensor.Sizes[2]");
    Tensor wzFirst(U8, {6, 1, 1, 1});
    test::expectInvalid(conv.make(input, &xz, filter, &wzFirst, output), "FilterZeroPointTensor.Sizes[0]");
    // { [1], OC, [1], [1] }: the channels second of 2 or more dimensions, alone of one.
    Tensor wzPair(U8, {6, 1});
    test::expectInvalid(conv.make(input, nullptr, filter, &wzPair, output), "FilterZeroPointTensor.Sizes[0]",
                        {"{6,1}"});
    Tensor wzOne(U8, {3});
    test::expectInvalid(conv.make(input, nullptr, filter, &wzOne, output), "FilterZeroPointTensor.Sizes[0]",
                        {"6", "{3}"});
  }
  SUBCASE("the output's batch is the input's") {
    Tensor o2(I32, {2, 6, 5, 5});
    test::expectInvalid(conv.make(input, &xz, filter, &wz, o2), "OutputTensor.Sizes[0]", {"1", "2"});
  }
  SUBCASE("the output's channels are the filter's") {
    Tensor o8(I32, {1, 8, 5, 5});
    test::expectInvalid(conv.make(input, &xz, filter, &wz, o8), "OutputTensor.Sizes[1]", {"6", "8"});
  }
  SUBCASE("output spatial sizes follow the formula") {
    conv.startPadding = {1, 0};
    conv.endPadding = {1, 0};
    Tensor o(I32, {1, 6, 5, 5});  // OW = (5 + 0 + 0 - 3) / 1 + 1 = 3
    test::expectInvalid(conv.make(input, &xz, filter, &wz, o), "OutputTensor.Sizes[3]",
                        {"must be 3 = (W + Px0 + Px1 - ((KW-1)*Dx + 1)) / Sx + 1", "not 5"});
    conv.strides = {2, 1};
    Tensor o2(I32, {1, 6, 4, 3});  // OH = (5 + 1 + 1 - 3) / 2 + 1 = 3
    test::expectInvalid(conv.make(input, &xz, filter, &wz, o2), "OutputTensor.Sizes[2]",
                        {"must be 3 = (H + Py0 + Py1 - ((KH-1)*Dy + 1)) / Sy + 1", "not 4"});
  }
  SUBCASE("the dilated kernel fits the padded input") {
    conv.dilations = {4, 1};  // (3-1)*4 + 1 = 9 > 5 + 1 + 1 = 7
    Tensor o(I32, {1, 6, 1, 5});
    test::expectInvalid(conv.make(input, &xz, filter, &wz, o), "FilterTensor.Sizes[2]", {"9", "7", "empty"});
  }
  SUBCASE("3-D: DimensionCount 1 and the W formula") {
    Tensor in3(U8, {1, 4, 5}), f3(U8, {6, 2, 3}), o3(I32, {1, 6, 4}), xz3(U8, {1, 1, 1}), wz3(U8, {1, 6, 1});
    Conv c1{{1}, {1}, {1}, {1}, 2};
    test::expectInvalid(c1.make(in3, &xz3, f3, &wz3, o3), "OutputTensor.Sizes[2]",
                        {"must be 5 = (W + Px0 + Px1 - ((KW-1)*Dx + 1)) / Sx + 1", "not 4"});
    Tensor o3ok(I32, {1, 6, 5});
    CHECK_FALSE(vkdml::validate(c1.make(in3, &xz3, f3, &wz3, o3ok)).has_value());
  }
}

// The path options: each path compiles to its own kernel where the device
// has it and is refused with Unsupported, naming the option, where it does
// not; $VKDML_CONVOLUTION_PATH, read when a Device is created, picks the
// path of its Auto compiles and must name a path. (Every path's results are checked by the ctest entries that
// rerun the cases above through it: "dot:convolution_integer: ..." etc.)
TEST_CASE("convolution_integer: paths: options, the environment variable, refusals") {
  Tensor input(U8, {1, 64, 8, 8}), filter(I8, {64, 64, 3, 3}), output(I32, {1, 64, 8, 8});
  Conv conv{{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1};
  vkdml::Device& device = test::device();
  vkdml::Operator op = device.createOperator(conv.make(input, nullptr, filter, nullptr, output));
  const vkdml::DeviceInfo& info = device.info();
  // The cooperative-matrix kernel's shared memory with 128-column tiles.
  const uint32_t coopmatShared = vkdml::shader::coopmatSharedBytes(8, 128);
  // The real matrices' warps: 32-lane subgroups, by default or on request.
  const bool warp32 = info.subgroupSize == 32 || (info.minSubgroupSize <= 32 && 32 <= info.maxSubgroupSize);
  struct Expected {
    vkdml::ConvolutionPath path;
    bool available;
    const char* kernel;  // part of the kernel's name
  };
  const Expected paths[] = {
      {vkdml::ConvolutionPath::Portable, true, "convolution_integer_xu8_wi8_i32"},
      {vkdml::ConvolutionPath::DotProduct, info.integerDotProduct, "_dot"},
      {vkdml::ConvolutionPath::CooperativeMatrix,
       info.cooperativeMatrixInt8 && info.integerDotProduct && warp32 &&
           info.maxComputeSharedMemorySize >= coopmatShared,
       "coopmat_nv"},
      {vkdml::ConvolutionPath::CooperativeMatrixEmulated,
       info.maxComputeSharedMemorySize >= coopmatShared && info.subgroupSize >= 4, "coopmat_emulated"},
      {vkdml::ConvolutionPath::CooperativeMatrixKHR,
       info.cooperativeMatrixKHRInt8 && info.integerDotProduct && warp32 &&
           info.maxComputeSharedMemorySize >= coopmatShared,
       "coopmat_khr"},
  };
  for (const Expected& e : paths) {
    CAPTURE(vkdml::toString(e.path));
    if (e.available) {
      const std::vector<std::string> kernels = device.compileOperator(op, {e.path}).kernelNames();
      REQUIRE(!kernels.empty());  // the GEMM last, after a pass packing its operands on the coopmat paths
      CHECK(kernels.back().find(e.kernel) != std::string::npos);
      if (e.path == vkdml::ConvolutionPath::Portable) CHECK(kernels.size() == 1);
      if (e.path == vkdml::ConvolutionPath::Portable) CHECK(kernels[0].find("_dot") == std::string::npos);
    } else {
      try {
        device.compileOperator(op, {e.path});
        FAIL("compiled a path the device lacks");
      } catch (const vkdml::Error& error) {
        CHECK(error.code() == vkdml::ErrorCode::Unsupported);
        CHECK(error.op() == "DML_CONVOLUTION_INTEGER");
        CHECK(error.field() == "CompileOptions.convolutionPath");
        CHECK(std::string(error.what()).find(vkdml::toString(e.path)) != std::string::npos);
      }
    }
  }

  // Auto takes cooperative matrices where the device has them from 48 output
  // pixels on (this GEMM has 64), unless the runner forces a path.
  const char* forced = std::getenv("VKDML_CONVOLUTION_PATH");
  if (!forced || !*forced || std::string(forced) == "auto") {
    const std::string automatic = device.compileOperator(op).kernelNames().back();
    CAPTURE(automatic);
    CHECK((automatic.find("coopmat_nv") != std::string::npos) == paths[2].available);
  }

  // A value outside the enumeration (a hostile or stale option) is refused.
  try {
    device.compileOperator(op, {static_cast<vkdml::ConvolutionPath>(99)});
    FAIL("accepted an unknown path value");
  } catch (const vkdml::Error& error) {
    CHECK(error.code() == vkdml::ErrorCode::InvalidArgument);
    CHECK(error.field() == "CompileOptions.convolutionPath");
  }

  // The environment variable (restored afterwards: the runner may have set
  // it), read by each Device when it is created.
  const std::vector<std::string> before = device.compileOperator(op).kernelNames();
  {
    test::ScopedEnvironment environment("VKDML_CONVOLUTION_PATH", "portable");
    std::shared_ptr<vkdml::Device> fresh = test::createDevice();
    CHECK(fresh->compileOperator(op).kernelNames().at(0) == "convolution_integer_xu8_wi8_i32");
    // An explicit option wins over the environment.
    if (info.integerDotProduct)
      CHECK(fresh->compileOperator(op, {vkdml::ConvolutionPath::DotProduct}).kernelNames().at(0).find("_dot") !=
            std::string::npos);
    // A Device created before keeps what it read then.
    CHECK(device.compileOperator(op).kernelNames() == before);
  }
  test::expectRefusedAtDeviceCreation("VKDML_CONVOLUTION_PATH", "fastest");
}

namespace {
// The 8-warp tiles of 64 columns (_n64), not the 4-warp ones (_w4_n64).
bool isEightWarpNarrow(const std::string& kernel) {
  return kernel.find("_n64") != std::string::npos && kernel.find("_w4_") == std::string::npos;
}
}  // namespace

// Which operands the cooperative-matrix paths pack: CompileOptions, else
// $VKDML_CONVOLUTION_PACKING when the Device was created (0, b, ab or nhwc), else
// the shape decides. (The ctest entries "coopmat-emulated-packing-b: ..."
// etc. check results with each choice.)
TEST_CASE("convolution_integer: packing: options, the environment variable, refusals") {
  Tensor input(U8, {1, 64, 8, 8}), filter(I8, {64, 64, 3, 3}), output(I32, {1, 64, 8, 8});
  Conv conv{{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1};
  vkdml::Device& device = test::device();
  vkdml::Operator op = device.createOperator(conv.make(input, nullptr, filter, nullptr, output));
  if (device.info().maxComputeSharedMemorySize < vkdml::shader::coopmatSharedBytes(8, 128) ||
      !device.info().subgroupShuffleRelative || device.info().subgroupSize < 4) {
    MESSAGE("skipped: the device cannot run the emulated cooperative-matrix kernel");
    return;
  }
  const vkdml::ConvolutionPath path = vkdml::ConvolutionPath::CooperativeMatrixEmulated;
  auto packs = [&](vkdml::Device& d, vkdml::ConvolutionPacking packing) {
    const std::vector<std::string> kernels = d.compileOperator(op, {path, packing}).kernelNames();
    return kernels.front().rfind("convolution_integer_pack", 0) == 0;
  };
  CHECK(!packs(device, vkdml::ConvolutionPacking::None));
  {
    // Auto, on a Device without a default packing (the suite may run with
    // one): 64 rows over 18 K steps gather (no pack dispatch), over 144 pack;
    // where the device counts its multiprocessors (tiles of 64 x 64 in
    // reach), this 3x3 kernel's A comes channels-last instead (packed).
    test::ScopedEnvironment environment("VKDML_CONVOLUTION_PACKING", "");
    std::shared_ptr<vkdml::Device> fresh = test::createDevice();
    const bool counted = fresh->info().multiprocessors != 0;
    CHECK(packs(*fresh, vkdml::ConvolutionPacking::Auto) == counted);
    // Strided, A's rows are byte gathers: the same 64 rows and 18 K steps pack.
    Tensor stridedInput(U8, {1, 64, 16, 16});
    Conv strided{{2, 2}, {1, 1}, {1, 1}, {1, 1}, 1};
    CHECK(fresh
              ->compileOperator(fresh->createOperator(strided.make(stridedInput, nullptr, filter, nullptr, output)),
                                {path, vkdml::ConvolutionPacking::Auto})
              .kernelNames()
              .front()
              .rfind("convolution_integer_pack", 0) == 0);
    Tensor deepInput(U8, {1, 512, 8, 8}), deepFilter(I8, {64, 512, 3, 3});
    vkdml::Operator deep = fresh->createOperator(conv.make(deepInput, nullptr, deepFilter, nullptr, output));
    CHECK(fresh->compileOperator(deep, {path, vkdml::ConvolutionPacking::Auto})
              .kernelNames()
              .front()
              .rfind("convolution_integer_pack", 0) == 0);
    // 18 K steps into 256 output channels: packed (A then takes tiles of 64
    // columns, K split across the grid: on 8 warps, or where counted 4 warps
    // of 64 x 64).
    Tensor wideFilter(I8, {256, 64, 3, 3}), wideOutput(I32, {1, 256, 8, 8});
    const std::vector<std::string> wideKernels =
        fresh
            ->compileOperator(fresh->createOperator(conv.make(input, nullptr, wideFilter, nullptr, wideOutput)),
                              {path, vkdml::ConvolutionPacking::Auto})
            .kernelNames();
    CHECK(wideKernels.front().rfind("convolution_integer_pack", 0) == 0);
    CHECK_MESSAGE((counted ? wideKernels.back().find("_w4_m64_n64_") != std::string::npos
                           : isEightWarpNarrow(wideKernels.back())),
                  wideKernels.back());
    // A filter flagged DML_TENSOR_FLAG_OWNED_BY_DML is packed by the
    // initializer alone: the 18-step layer then packs it, and each execution
    // packs the input alone, channels-last (the GEMM reads both packed); a
    // 1x1 layer of 2 K steps does not.
    // (Tensor::desc(), called by make, refreshes the flags: set after it.)
    const DML_OPERATOR_DESC& ownedDesc = conv.make(input, nullptr, filter, nullptr, output);
    filter.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    vkdml::CompiledOperator owned = fresh->compileOperator(fresh->createOperator(ownedDesc), {path});
    CHECK(owned.initializerKernelNames() == std::vector<std::string>{"convolution_integer_pack_i32"});
    CHECK(owned.kernelNames().front() == "convolution_integer_pack_words_i32");
    CHECK(owned.kernelNames().back().find("_packed") != std::string::npos);
    Tensor pointwise(I8, {64, 64, 1, 1});
    Conv conv1x1{{1, 1}, {1, 1}, {0, 0}, {0, 0}, 1};
    const DML_OPERATOR_DESC& pointwiseDesc = conv1x1.make(input, nullptr, pointwise, nullptr, output);
    pointwise.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    vkdml::CompiledOperator ownedPointwise = fresh->compileOperator(fresh->createOperator(pointwiseDesc), {path});
    // Not packed: the initializer copies it whole (a copy kernel).
    const std::vector<std::string> initializer = ownedPointwise.initializerKernelNames();
    CHECK(initializer.size() == 1);
    CHECK(initializer.front().rfind("copy_", 0) == 0);
    CHECK(ownedPointwise.kernelNames().front().find("_packed") == std::string::npos);
    // The GEMM kernel Auto takes for a 1x1 convolution.
    auto gemmKernel = [&](Tensor& in, Tensor& f, Tensor& out) {
      return fresh->compileOperator(fresh->createOperator(conv1x1.make(in, nullptr, f, nullptr, out)), {path})
          .kernelNames()
          .back();
    };
    // 49 rows, 512 columns, 64 K steps: 8 tiles of 64 columns (K split: 256
    // workgroups, of 8 warps; where counted, gathered on 4 warps of 64 x 64)
    // rather than 2 of 256 (64 workgroups).
    Tensor fewRows(U8, {1, 2048, 7, 7}), wide(I8, {512, 2048, 1, 1}), fewRowsOutput(I32, {1, 512, 7, 7});
    const std::string narrowTiles = gemmKernel(fewRows, wide, fewRowsOutput);
    CHECK_MESSAGE((counted ? narrowTiles == "convolution_integer_coopmat_emulated_w4_m64_n64_i32"
                           : isEightWarpNarrow(narrowTiles)),
                  narrowTiles);
    // 196 rows, 1024 columns, 8 K steps: too few to split, tiles of 64
    // columns on 4 warps (of 64 rows where the device counts enough
    // multiprocessors: the _w4_m64_n64 variants).
    Tensor fewSteps(U8, {1, 256, 14, 14}), wider(I8, {1024, 256, 1, 1}), fewStepsOutput(I32, {1, 1024, 14, 14});
    const std::string unsplit = gemmKernel(fewSteps, wider, fewStepsOutput);
    CHECK_MESSAGE((unsplit.find("_w4_n64") != std::string::npos || unsplit.find("_w4_m64_n64") != std::string::npos),
                  unsplit);
  }
  CHECK(packs(device, vkdml::ConvolutionPacking::Filter));
  CHECK(packs(device, vkdml::ConvolutionPacking::Both));
  CHECK(packs(device, vkdml::ConvolutionPacking::ChannelsLast));
  // Channels-last, the scratch holds the padded input (1 x 10 x 10 pixels x
  // 64 channels) before the packed filter (one column tile of 64, 18 K
  // steps of 32): the GEMM reads A from there, not gathered.
  auto temporary = [&](vkdml::ConvolutionPacking packing) {
    return device.compileOperator(op, {path, packing}).bindingProperties().temporaryResourceSize;
  };
  CHECK(temporary(vkdml::ConvolutionPacking::Filter) == 18 * 64 * 32);
  CHECK(temporary(vkdml::ConvolutionPacking::ChannelsLast) == 10 * 10 * 64 + 18 * 64 * 32);
  // An owned filter, packed by the initializer, lies in the persistent
  // resource; the input, packed by each execution, in the temporary one.
  {
    const DML_OPERATOR_DESC& ownedDesc = conv.make(input, nullptr, filter, nullptr, output);
    filter.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    vkdml::Operator ownedOp = device.createOperator(ownedDesc);
    const vkdml::BindingProperties properties =
        device.compileOperator(ownedOp, {path, vkdml::ConvolutionPacking::ChannelsLast}).bindingProperties();
    CHECK(properties.temporaryResourceSize == 10 * 10 * 64);
    CHECK(properties.persistentResourceSize == 18 * 64 * 32);
  }
  try {
    device.compileOperator(op, {path, static_cast<vkdml::ConvolutionPacking>(7)});
    FAIL("accepted an unknown packing value");
  } catch (const vkdml::Error& error) {
    CHECK(error.code() == vkdml::ErrorCode::InvalidArgument);
    CHECK(error.field() == "CompileOptions.convolutionPacking");
  }
  {
    test::ScopedEnvironment environment("VKDML_CONVOLUTION_PACKING", "0");
    std::shared_ptr<vkdml::Device> fresh = test::createDevice();
    CHECK(!packs(*fresh, vkdml::ConvolutionPacking::Auto));
    CHECK(packs(*fresh, vkdml::ConvolutionPacking::Filter));  // the option wins
  }
  test::expectRefusedAtDeviceCreation("VKDML_CONVOLUTION_PACKING", "ba");
}
