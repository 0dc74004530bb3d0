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
// --index-bits=64 sets $VKDML_INDEX_BITS: the data-movement operators'
// kernels with 64-bit offsets, which only footprints past 2^32 elements
// take otherwise.
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
  // Each option sets the variable the library reads when a Device is created.
  const struct {
    const char* option;
    const char* variable;
  } options[] = {{"--convolution-path=", "VKDML_CONVOLUTION_PATH"},
                 {"--convolution-packing=", "VKDML_CONVOLUTION_PACKING"},
                 {"--copy-path=", "VKDML_COPY_PATH"},
                 {"--dot-kernel=", "VKDML_DOT_KERNEL"},
                 {"--index-bits=", "VKDML_INDEX_BITS"},
                 {"--split-zeros=", "VKDML_SPLIT_ZEROS"}};
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    bool taken = false;
    for (const auto& o : options)
      if (std::strncmp(argv[i], o.option, std::strlen(o.option)) == 0) {
        setenv(o.variable, argv[i] + std::strlen(o.option), 1);
        if (std::strcmp(o.variable, "VKDML_SPLIT_ZEROS") == 0) setenv("LP_NUM_THREADS", "0", 1);
        taken = true;
      }
    if (!taken) args.push_back(argv[i]);
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
