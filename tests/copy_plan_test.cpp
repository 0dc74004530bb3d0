// Which data movement a CPU device (lavapipe) does with transfer commands
// instead of the copy kernel, region by region ("copy plan"), planned
// without running; and CompileOptions' enums, checked before any plan.
#include <array>

#include "planning.hpp"

using namespace test::planning;

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

// $VKDML_INDEX_BITS=64 (PlanDefaults::indexBits) gives the copy kernel
// 64-bit offsets on tensors that need none, for the "index64:" reruns of
// the data-movement tests; it is read when a Device is created.
TEST_CASE("copy plan: $VKDML_INDEX_BITS=64 takes the 64-bit copy kernel whatever the footprint") {
  constexpr auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;
  using vkdml::CopyPath;
  Slice flip(F32, {3, 32}, {3, 32}, {-1, 1});
  vkdml::CompileOptions kernel;
  kernel.copyPath = CopyPath::Kernel;
  auto bits = [](const std::string& name) {  // copy_e<bytes>_i<bits>
    REQUIRE(name.rfind("copy_e", 0) == 0);
    return name.substr(name.rfind("_i") + 2);
  };
  vkdml::detail::PlanDefaults wide;
  wide.indexBits = 64;
  CHECK(bits(kernelName(planFor(flip.desc(), fullDevice(), kernel).at(0).kernel)) == "32");
  CHECK(bits(kernelName(planFor(flip.desc(), fullDevice(), kernel, wide).at(0).kernel)) == "64");
  for (const char* value : {"64", "auto"}) {
    test::ScopedEnvironment environment("VKDML_INDEX_BITS", value);
    const std::shared_ptr<vkdml::Device> device = test::createDevice();
    CHECK(bits(device->compileOperator(device->createOperator(flip.desc()), kernel).kernelNames().at(0)) ==
          (std::string(value) == "64" ? "64" : "32"));
  }
  for (const char* wrong : {"32", "128", "64 "}) test::expectRefusedAtDeviceCreation("VKDML_INDEX_BITS", wrong);
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
  options.convolutionPath = static_cast<vkdml::ConvolutionPath>(int(vkdml::ConvolutionPath::CooperativeMatrixKHR) + 1);
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

TEST_CASE("copy plan: an owned input whose footprint spans 2^32 elements and more is copied element by element") {
  // The initializer copies an owned input's elements into the persistent
  // resource in its own layout: a footprint of 8 * (2^32 - 2) + 1 elements
  // (UINT32 {2^32 - 1}, stride 8) compiles; its copy was once planned over
  // the footprint's elements, refused above 2^32 (a fuzzer finding).
  vkdml::Device& d = test::device();
  constexpr auto U32 = DML_TENSOR_DATA_TYPE_UINT32;
  Desc input(U32, {0xFFFFFFFFu}, {8}), output(U32, {1});
  input.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  const UINT offsets[1] = {0}, sizes[1] = {1};
  const INT strides[1] = {1};
  DML_SLICE1_OPERATOR_DESC slice{&input.tensor, &output.tensor, 1, offsets, sizes, strides};
  const vkdml::CompiledOperator compiled = d.compileOperator(d.createOperator({DML_OPERATOR_SLICE1, &slice}));
  const std::vector<std::string> initializer = compiled.initializerKernelNames();
  REQUIRE(initializer.size() == 1);
  CHECK(initializer.front() == "copy_e4_i64");  // offsets past 2^32 elements
  CHECK(compiled.bindingProperties().persistentResourceSize >= input.buffer.TotalTensorSizeInBytes);
}
