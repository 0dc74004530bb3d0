// The kernels a compile in test::run() must have taken: the path, packing
// and dot kernel forced on a convolution, 64-bit offsets where forced, and
// the GEMM variant a case was written for (test::ExpectKernel).
#include <cstdlib>
#include <string>
#include <vector>

#include "../runtime/core/internal.hpp"
#include "../runtime/ops/convolution_integer_plan.hpp"
#include "kernel_checks.hpp"

namespace test {

namespace {
// A convolution must have taken the path forced on it: the test's
// compileOptions() where they name one (they take precedence), else
// $VKDML_CONVOLUTION_PATH (otherwise the ctest entries that force a path
// would test another one).
void checkConvolutionPath(const vkdml::Operator& op, const vkdml::CompiledOperator& compiled) {
  const vkdml::ConvolutionPath option = compileOptions().convolutionPath;
  const char* path =
      option != vkdml::ConvolutionPath::Auto ? vkdml::toString(option) : std::getenv("VKDML_CONVOLUTION_PATH");
  if (!path || op.type() != DML_OPERATOR_CONVOLUTION_INTEGER) return;
  // The GEMM is the last dispatch: packed operands come first, a K split
  // across the grid of the cooperative-matrix kernel after a fill of zeros
  // (unless a pack runs first: it zeroes the output itself), and a K too
  // deep for one dispatch takes several of the same GEMM kernel.
  const std::vector<std::string> kernels = compiled.kernelNames();
  const std::string kernel = kernels.back(), forced = path;
  auto has = [&](const char* part) { return kernel.find(part) != std::string::npos; };
  INFO("kernel " << kernel << " for path " << forced);
  const bool packs = kernels.front().rfind("convolution_integer_pack", 0) == 0;
  // An owned filter packed alone is packed by the initializer.
  const std::vector<std::string> initializer = compiled.initializerKernelNames();
  const bool packedOnce = !initializer.empty() && initializer.front().rfind("convolution_integer_pack", 0) == 0;
  // Or a GEMM that reads A in place from an input whose channels lie
  // innermost (shader::A_FROM_INPUT) and B from the filter's rows packs nothing.
  const auto& input = vkdml::detail::Access::plan(op).inputs.front().tensor;
  const bool channelsInnermost = input && input->strides[1] == 1;
  if (packs || packedOnce)
    CHECK(has("_packed"));
  else if (has("_packed"))
    CHECK(channelsInnermost);
  const size_t gemms = packs ? 1 : 0;
  const bool zeroes = kernels.size() > gemms + 1 && kernels[gemms] == "fill";
  if (zeroes) CHECK((has("coopmat") && kernels.size() == gemms + 2 && !packs));
  for (size_t i = gemms + (zeroes ? 1 : 0); i < kernels.size(); ++i) CHECK(kernels[i] == kernel);
  using vkdml::ConvolutionPacking;
  const ConvolutionPacking packingOption = compileOptions().convolutionPacking;
  const char* packingEnvironment = std::getenv("VKDML_CONVOLUTION_PACKING");
  const std::string packed = packingOption == ConvolutionPacking::None           ? "0"
                             : packingOption == ConvolutionPacking::Filter       ? "b"
                             : packingOption == ConvolutionPacking::Both         ? "ab"
                             : packingOption == ConvolutionPacking::ChannelsLast ? "nhwc"
                             : packingEnvironment                                ? packingEnvironment
                                                                                 : "";
  // A packing forced on a cooperative-matrix path packs: the filter (by
  // each execution, or once by the initializer where it is owned), the
  // input too with ab (by each execution); channels-last packs the input,
  // or the filter where the groups' channels do not make whole K steps
  // (the option first, else $VKDML_CONVOLUTION_PACKING).
  if (packed == "0") CHECK(!has("_packed"));
  if (has("coopmat") && (packed == "b" || packed == "ab" || packed == "nhwc")) CHECK(has("_packed"));
  if (has("coopmat") && packed == "b") CHECK((packs || packedOnce));
  if (has("coopmat") && packed == "ab") CHECK(packs);
  if (forced == "portable") CHECK((!has("_dot") && !has("coopmat")));
  if (forced == "dot") {
    CHECK(has("_dot"));
    // The tiled kernel forced (the option, else $VKDML_DOT_KERNEL) runs
    // wherever a group has the columns it needs; the portable one forced
    // runs everywhere.
    const vkdml::DotKernel kernelOption = compileOptions().dotKernel;
    const char* environment = std::getenv("VKDML_DOT_KERNEL");
    const std::string dotKernel = kernelOption == vkdml::DotKernel::Tiled      ? "tiled"
                                  : kernelOption == vkdml::DotKernel::Portable ? "portable"
                                  : environment                                ? environment
                                                                               : "auto";
    const bool tiled = kernel.rfind("convolution_integer_dot_", 0) == 0;
    const auto& filter = *vkdml::detail::Access::plan(op).inputs[2].tensor;
    const uint32_t groupOutputChannels = filter.sizes[0] / (input->sizes[1] / filter.sizes[1]);
    INFO("dot kernel " << dotKernel << ", output channels per group " << groupOutputChannels);
    if (dotKernel == "tiled") CHECK(tiled == (groupOutputChannels >= vkdml::detail::kDotMinColumns));
    if (dotKernel == "portable") CHECK(!tiled);
  }
  if (forced == "coopmat") CHECK(has("coopmat_nv"));
  if (forced == "coopmat-emulated") CHECK(has("coopmat_emulated"));
  if (forced == "coopmat-khr") CHECK(has("coopmat_khr"));
}

std::string& expectedKernelPart() {
  static std::string part;
  return part;
}

// With $VKDML_INDEX_BITS=64 every kernel of the data-movement operators
// takes 64-bit offsets (otherwise only footprints past 2^32 elements do).
void checkIndexBits(const vkdml::CompiledOperator& compiled) {
  const char* bits = std::getenv("VKDML_INDEX_BITS");
  if (!bits || std::string(bits) != "64") return;
  std::vector<std::string> kernels = compiled.kernelNames(), initializer = compiled.initializerKernelNames();
  kernels.insert(kernels.end(), initializer.begin(), initializer.end());
  for (const std::string& kernel : kernels)
    for (const char* family : {"copy", "scatter_nd", "diagonal_matrix1"})
      if (kernel.rfind(family, 0) == 0) {
        INFO("kernel " << kernel);
        CHECK(kernel.substr(kernel.size() - 4) == "_i64");
      }
}
}  // namespace

void checkKernels(const vkdml::Operator& op, const vkdml::CompiledOperator& compiled) {
  checkConvolutionPath(op, compiled);
  checkIndexBits(compiled);
  // Wherever the GEMM is a cooperative-matrix kernel (Auto may take the
  // dot path on a GPU for so few rows).
  const std::string gemm = compiled.kernelNames().back();
  if (!expectedKernelPart().empty() && op.type() == DML_OPERATOR_CONVOLUTION_INTEGER &&
      gemm.find("coopmat") != std::string::npos) {
    INFO("kernel " << gemm);
    CHECK(gemm.find(expectedKernelPart()) != std::string::npos);
  }
}

ExpectKernel::ExpectKernel(std::string part) : previous(std::move(expectedKernelPart())) {
  expectedKernelPart() = std::move(part);
}
ExpectKernel::~ExpectKernel() {
  expectedKernelPart() = std::move(previous);
}

}  // namespace test
