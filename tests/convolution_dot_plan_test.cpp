// The dot-product kernel's tiles (convolution_integer_dot.comp,
// runtime/ops/convolution_integer_tiles.cpp chooseDotTiles): the shape
// each GEMM gets, the depth that shared memory allows, and
// $VKDML_DOT_TILE, which sets the tile for a sweep without rebuilding.
#include "interface/convolution_integer.h"

#include "planning.hpp"

using namespace test::planning;

namespace {

// Square images.
struct Square : SameConv {
  Square(UINT n, UINT c, UINT oc, UINT hw, UINT k) : SameConv(n, c, oc, hw, hw, k) {}
};

struct Tile {
  uint32_t workgroup, bm, bn, bk, tm, tn;
  bool operator==(const Tile& o) const {
    return workgroup == o.workgroup && bm == o.bm && bn == o.bn && bk == o.bk && tm == o.tm && tn == o.tn;
  }
};
std::ostream& operator<<(std::ostream& os, const Tile& t) {
  return os << t.workgroup << ": " << t.bm << "x" << t.bn << "x" << t.bk << " by " << t.tm << "x" << t.tn;
}

// The tile of the dot kernel's GEMM dispatch (its specialization constants).
Tile planned(const Square& s, const vkdml::DeviceInfo& device, const vkdml::detail::PlanDefaults& defaults = {}) {
  const vkdml::Operator op = test::device().createOperator(s.desc());
  vkdml::CompileOptions options;
  options.convolutionPath = vkdml::ConvolutionPath::DotProduct;
  options.dotKernel = vkdml::DotKernel::Tiled;
  const std::vector<Dispatch> dispatches = vkdml::detail::Access::plan(op).plan(device, options, defaults);
  REQUIRE(dispatches.size() == 1);
  CHECK(kernelName(dispatches[0].kernel) == std::string("convolution_integer_dot_xu8_wi8_i32"));
  CHECK(dispatches[0].loopPasses <= kLoopBudget);
  Tile t{};
  for (const auto& [id, value] : dispatches[0].specialization) {
    uint32_t* field[] = {&t.workgroup, &t.bm, &t.bn, &t.bk, &t.tm, &t.tn};
    if (id < 6) *field[id] = value;
  }
  return t;
}

}  // namespace

TEST_CASE("convolution plan: the dot kernel's tiles") {
  const vkdml::DeviceInfo gpu = fullDevice();  // 48 KiB of shared memory
  // A of word taps (1x1): 128 columns of 8x8 per invocation, 32 deep.
  CHECK(planned(Square(8, 512, 512, 32, 1), gpu) == Tile{256, 128, 128, 32, 8, 8});
  // Taps off word boundaries (padding 1): 256 columns of 8x16, 64 deep,
  // where they fit and leave 512 tiles or more (784 here); 128 columns for
  // 128 output channels or fewer tiles (49 here).
  CHECK(planned(Square(32, 256, 256, 56, 3), gpu) == Tile{256, 128, 256, 64, 8, 16});
  CHECK(planned(Square(32, 128, 128, 56, 3), gpu) == Tile{256, 128, 128, 32, 8, 8});
  CHECK(planned(Square(32, 256, 256, 14, 3), gpu) == Tile{256, 128, 128, 32, 8, 8});
  // Narrower GEMMs: narrower tiles with more rows, 256 invocations each.
  CHECK(planned(Square(4, 64, 64, 28, 3), gpu) == Tile{256, 128, 64, 32, 8, 4});
  CHECK(planned(Square(4, 64, 20, 28, 3), gpu) == Tile{256, 128, 32, 32, 4, 4});
  // One chunk of A and of B to stage per invocation and K step: 16 deep here.
  CHECK(planned(Square(4, 32, 16, 28, 3), gpu) == Tile{256, 256, 16, 16, 4, 4});
  // A short K stays shallow: the stem's 147 would run 192 at 64, 160 at 32.
  CHECK(planned(Square(1, 3, 64, 56, 7), gpu).bk == 32);
  // Few output pixels: fewer rows, down to 64 invocations, and shallower
  // steps, which keep B's chunks per invocation at 1.
  CHECK(planned(Square(1, 512, 512, 7, 3), gpu) == Tile{128, 64, 128, 16, 8, 8});
  CHECK(planned(Square(1, 512, 512, 1, 1), gpu) == Tile{64, 32, 128, 16, 8, 8});
  // Fewer than 16 columns (depthwise): convolution_integer.comp with dot products.
  for (UINT columns : {1u, 15u}) {
    const Square narrow(4, 32, columns, 28, 3);
    const vkdml::Operator op = test::device().createOperator(narrow.desc());
    vkdml::CompileOptions options;
    options.convolutionPath = vkdml::ConvolutionPath::DotProduct;
    const std::vector<Dispatch> dispatches = vkdml::detail::Access::plan(op).plan(gpu, options, {});
    CHECK(kernelName(dispatches.back().kernel) == std::string("convolution_integer_xu8_wi8_i32_dot"));
  }
  // Shared memory bounds the depth (two stages of BM + BN rows of BK bytes).
  vkdml::DeviceInfo small = gpu;
  small.maxComputeSharedMemorySize = 16384;
  CHECK(planned(Square(32, 256, 256, 56, 3), small).bk == 32);
  small.maxComputeSharedMemorySize = 12288;
  CHECK(planned(Square(32, 256, 256, 56, 3), small).bk == 16);
  CHECK(vkdml::shader::ConvolutionIntegerDotConstants{}.BM == 128);
}

// A K too deep for one dispatch's loops (lavapipe's budget) runs in chunks,
// the later ones adding to the output (shader::ACCUMULATE in SPLIT).
TEST_CASE("convolution plan: the dot kernel's K in chunks") {
  const Square deep(1, 1u << 17, 20, 1, 1);
  const std::vector<Dispatch> dispatches =
      planWithinBudget(deep.desc(), fullDevice(), vkdml::ConvolutionPath::DotProduct, vkdml::DotKernel::Tiled);
  REQUIRE(dispatches.size() >= 2);
  for (size_t i = 0; i < dispatches.size(); ++i) {
    CHECK(kernelName(dispatches[i].kernel) == std::string("convolution_integer_dot_xu8_wi8_i32"));
    uint32_t split = 0;
    for (const auto& [id, value] : dispatches[i].specialization)
      if (id == 6) split = value;
    CHECK(split == (vkdml::shader::K_CHUNKED | (i ? vkdml::shader::ACCUMULATE : 0u)));
  }
}

TEST_CASE("convolution plan: $VKDML_DOT_TILE sets the dot kernel's tile") {
  const vkdml::DeviceInfo gpu = fullDevice();
  const Square layer(32, 256, 256, 56, 3);
  vkdml::detail::PlanDefaults defaults;
  defaults.dotTile = {64, 128, 32, 4, 8};
  CHECK(planned(layer, gpu, defaults) == Tile{256, 64, 128, 32, 4, 8});
  defaults.dotTile = {128, 128, 0, 8, 8};  // BK chosen
  CHECK(planned(layer, gpu, defaults) == Tile{256, 128, 128, 32, 8, 8});
  defaults.dotTile = {128, 128, 64, 8, 8};
  CHECK(planned(layer, gpu, defaults) == Tile{256, 128, 128, 64, 8, 8});
  defaults.dotTile = {256, 256, 64, 8, 8};  // 64 KiB of shared memory: refused, not shrunk
  try {
    planned(layer, gpu, defaults);
    FAIL("planned a tile past the device's shared memory");
  } catch (const vkdml::Error& e) {
    CHECK(e.code() == vkdml::ErrorCode::Unsupported);
    CHECK(e.field() == "VKDML_DOT_TILE");
  }
  // Read when a Device is created: a valid value is taken, others refused.
  {
    test::ScopedEnvironment environment("VKDML_DOT_TILE", "64x64x16x4x4");
    CHECK(test::createDevice() != nullptr);
  }
  for (const char* wrong : {"128x128", "128x128x8x8x8x8", "128x128x6x8", "100x128x8x8", "128xx8x8", "128x128x8x8x",
                            "128x128x24x8x8", "1024x1024x4x4", "a"})
    test::expectRefusedAtDeviceCreation("VKDML_DOT_TILE", wrong);
}

// Which kernel the dot path runs: Auto takes the tiled one for GEMMs of 64
// or more columns, a whole tile of rows and K of 256 or more, or on GPUs
// for contiguous rows at any K; CompileOptions::dotKernel and
// $VKDML_DOT_KERNEL force either.
TEST_CASE("convolution plan: the dot path's kernel") {
  auto kernel = [](const Square& s, const vkdml::DeviceInfo& device, vkdml::DotKernel option,
                   vkdml::DotKernel environment = vkdml::DotKernel::Auto) {
    const vkdml::Operator op = test::device().createOperator(s.desc());
    vkdml::CompileOptions options;
    options.convolutionPath = vkdml::ConvolutionPath::DotProduct;
    options.dotKernel = option;
    vkdml::detail::PlanDefaults defaults;
    defaults.dotKernel = environment;
    return std::string(kernelName(vkdml::detail::Access::plan(op).plan(device, options, defaults).back().kernel));
  };
  const std::string tiled = "convolution_integer_dot_xu8_wi8_i32", portable = "convolution_integer_xu8_wi8_i32_dot";
  using vkdml::DotKernel;
  const vkdml::DeviceInfo gpu = fullDevice();
  vkdml::DeviceInfo cpu = gpu;
  cpu.type = VK_PHYSICAL_DEVICE_TYPE_CPU;
  const Square layer(32, 256, 256, 56, 3), fewRows(1, 512, 512, 7, 3), narrow(4, 64, 32, 28, 3);
  const Square shallow(1, 64, 256, 28, 1);  // K = 64, contiguous rows
  CHECK(kernel(layer, gpu, DotKernel::Auto) == tiled);
  CHECK(kernel(fewRows, gpu, DotKernel::Auto) == portable);  // 49 rows
  CHECK(kernel(narrow, gpu, DotKernel::Auto) == portable);   // 32 columns
  CHECK(kernel(shallow, gpu, DotKernel::Auto) == tiled);
  CHECK(kernel(layer, cpu, DotKernel::Auto) == tiled);
  CHECK(kernel(shallow, cpu, DotKernel::Auto) == portable);
  CHECK(kernel(shallow, cpu, DotKernel::Tiled) == tiled);
  CHECK(kernel(narrow, gpu, DotKernel::Tiled) == tiled);
  CHECK(kernel(layer, gpu, DotKernel::Portable) == portable);
  CHECK(kernel(shallow, cpu, DotKernel::Auto, DotKernel::Tiled) == tiled);
  CHECK(kernel(layer, gpu, DotKernel::Portable, DotKernel::Tiled) == portable);  // the option first
  // Fewer than 16 columns take the portable kernel even when forced.
  CHECK(kernel(Square(4, 32, 15, 28, 3), gpu, DotKernel::Tiled) == portable);
  // A value out of the enum is refused; so is an unknown $VKDML_DOT_KERNEL.
  vkdml::CompileOptions wrong;
  wrong.dotKernel = static_cast<DotKernel>(7);
  CHECK_THROWS_AS(test::device().compileOperator(test::device().createOperator(layer.desc()), wrong), vkdml::Error);
  // Read when a Device is created: the narrow layer, portable under Auto on
  // any device, takes the tiled kernel on a Device created with it set.
  vkdml::CompileOptions dot;
  dot.convolutionPath = vkdml::ConvolutionPath::DotProduct;
  {
    test::ScopedEnvironment environment("VKDML_DOT_KERNEL", "tiled");
    const std::shared_ptr<vkdml::Device> device = test::createDevice();
    CHECK(device->compileOperator(device->createOperator(narrow.desc()), dot).kernelNames().back() == tiled);
  }
  if (!std::getenv("VKDML_DOT_KERNEL"))
    CHECK(test::device().compileOperator(test::device().createOperator(narrow.desc()), dot).kernelNames().back() ==
          portable);
  test::expectRefusedAtDeviceCreation("VKDML_DOT_KERNEL", "fast");
}
