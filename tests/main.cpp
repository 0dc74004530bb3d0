// The test runner: doctest's, plus a final check that releasing the device
// (after every buffer and operator is gone) draws no validation message and
// leaves no reference behind.
//
// --convolution-path=<path> runs DML_CONVOLUTION_INTEGER through one path
// (it sets $VKDML_CONVOLUTION_PATH, which the library reads); where the
// device lacks that path the runner exits with 77, which ctest reports as a
// skip. --convolution-packing=0|b|ab|nhwc sets $VKDML_CONVOLUTION_PACKING:
// which operands the cooperative-matrix GEMM takes packed (none, the filter,
// both, the filter and the input channels-last).
// --dot-kernel=portable|tiled sets $VKDML_DOT_KERNEL: the dot-product
// path's kernel whatever the shape would choose.
// --copy-path=kernel sets $VKDML_COPY_PATH: data movement through the copy
// kernel where a CPU device would take transfer commands.
// --split-zeros=chunks sets $VKDML_SPLIT_ZEROS: a K split's chunks zero its
// output on any device, waiting on each other; and $LP_NUM_THREADS=0, so
// that lavapipe runs a dispatch's workgroups one after another and no wait
// outlasts its loop budget (a GPU ignores it).
#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "support.hpp"

namespace test {
std::shared_ptr<vkdml::Device>& deviceSlot();
int& messagesOutsideTests();
}  // namespace test

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const char* option = "--convolution-path=";
    const char* packing = "--convolution-packing=";
    const char* copyPath = "--copy-path=";
    const char* dotKernel = "--dot-kernel=";
    const char* splitZeros = "--split-zeros=";
    if (std::strncmp(argv[i], option, std::strlen(option)) == 0)
      setenv("VKDML_CONVOLUTION_PATH", argv[i] + std::strlen(option), 1);
    else if (std::strncmp(argv[i], packing, std::strlen(packing)) == 0)
      setenv("VKDML_CONVOLUTION_PACKING", argv[i] + std::strlen(packing), 1);
    else if (std::strncmp(argv[i], copyPath, std::strlen(copyPath)) == 0)
      setenv("VKDML_COPY_PATH", argv[i] + std::strlen(copyPath), 1);
    else if (std::strncmp(argv[i], dotKernel, std::strlen(dotKernel)) == 0)
      setenv("VKDML_DOT_KERNEL", argv[i] + std::strlen(dotKernel), 1);
    else if (std::strncmp(argv[i], splitZeros, std::strlen(splitZeros)) == 0) {
      setenv("VKDML_SPLIT_ZEROS", argv[i] + std::strlen(splitZeros), 1);
      setenv("LP_NUM_THREADS", "0", 1);
    } else
      args.push_back(argv[i]);
  }
  if (const char* path = std::getenv("VKDML_CONVOLUTION_PATH")) {
    std::string missing = test::convolutionPathUnsupported();
    if (!missing.empty()) {
      std::printf("test: skipped: %s\n", missing.c_str());
      test::deviceSlot().reset();
      return 77;
    }
    std::printf("test: convolution path %s\n", path);
  }
  doctest::Context context(static_cast<int>(args.size()), args.data());
  int result = context.run();
  std::weak_ptr<vkdml::Device> device = test::deviceSlot();
  test::deviceSlot().reset();
  if (!device.expired()) {
    std::fprintf(stderr, "test: the device outlived the tests: a handle leaked\n");
    result = result ? result : 1;
  }
  if (test::messagesOutsideTests() > 0) {
    std::fprintf(stderr, "test: %d validation messages outside test cases\n", test::messagesOutsideTests());
    result = result ? result : 1;
  }
  return result;
}
