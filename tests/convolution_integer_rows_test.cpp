// DML_CONVOLUTION_INTEGER through the cooperative-matrix tiles of fewer
// rows than 128 (96 and 64), forced by $VKDML_COOPMAT_ROWS wherever they
// apply, against the plain reference (their plans:
// convolution_coopmat_rows_plan_test.cpp).
#include <cstdlib>

#include "convolution_integer.hpp"
#include "support.hpp"

using namespace test::conv;

namespace {

// Runs `cases` with $VKDML_COOPMAT_ROWS at `rows` and the packing at
// `packing`, on a Device made for them: only through a cooperative-matrix
// path (forced, or Auto's on a device that has one), and not again through a
// forced packing. Written for those tiles, each case must take them
// (`kernel`, a part of the GEMM's name) unless `kernel` is empty.
void runWithRows(const char* rows, const char* packing, const std::vector<Case>& cases, uint64_t seed,
                 const std::string& kernel) {
  const char* path = std::getenv("VKDML_CONVOLUTION_PATH");
  const vkdml::DeviceInfo& info = test::device().info();
  const bool coopmat =
      path ? std::string(path).rfind("coopmat", 0) == 0 : info.cooperativeMatrixInt8 || info.cooperativeMatrixKHRInt8;
  if (!coopmat || std::getenv("VKDML_CONVOLUTION_PACKING")) {
    MESSAGE("skipped: not through a cooperative-matrix path, or again through a forced packing");
    return;
  }
  std::mt19937_64 rng(seed);
  test::ScopedEnvironment rowsVariable("VKDML_COOPMAT_ROWS", rows);
  test::ScopedEnvironment packingVariable("VKDML_CONVOLUTION_PACKING", packing);
  test::ScopedDevice device;
  test::ExpectKernel expected(kernel);
  runVariants(cases, rng);
}

// `count` random shapes (randomCase), their groups' channels at 32 or 64
// where `channelsLast` (channels-last A takes whole K steps of one tap).
std::vector<Case> randomCases(uint64_t seed, int count, bool channelsLast) {
  std::mt19937_64 rng(seed);
  std::vector<Case> cases;
  for (int i = 0; i < count; ++i) {
    Case c = randomCase(rng);
    if (channelsLast) {
      c.filter[1] = 32 * test::uniform(rng, 1, 2);
      c.input[1] = c.filter[1] * c.groups;
    }
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

// The cooperative-matrix kernel's tiles of 96 rows (the _m96 variants),
// which a device that counts its multiprocessors takes where they fill
// more of them, and every device with VKDML_COOPMAT_ROWS=96 wherever A
// comes channels-last on 8-warp tiles of 128 columns (the plans, of these
// shapes: convolution_coopmat_rows_plan_test.cpp): 1100 rows (the last tile's
// 44 all the first warp's), 1122 over two images (the last tile's 66 reach
// the second warp's, not its last pass), 1089 of stride 2, two groups of
// 160 columns over 1156 rows, a 1x1 kernel over 1152 rows whose outputs
// take 16-byte stores; 144 to 256 columns (two column tiles). The case
// forces channels-last itself.
TEST_CASE("convolution_integer: tiles of 96 rows") {
  runWithRows(
      "96", "nhwc",
      {case2d({1, 32, 20, 55}, {200, 32, 3, 3}, 1, 1, 1, 1, 1), case2d({2, 32, 17, 33}, {256, 32, 3, 3}, 1, 1, 1, 1, 1),
       case2d({1, 32, 66, 66}, {144, 32, 3, 3}, 2, 1, 1, 1, 1), case2d({1, 64, 34, 34}, {320, 32, 3, 3}, 1, 1, 1, 1, 2),
       case2d({2, 96, 24, 24}, {240, 96, 1, 1}, 1, 1, 0, 0, 1)},
      141, "_m96_");
}

// The cooperative-matrix kernel's tiles of 64 rows (the _w4_m64_n64
// variants), which a device that counts its multiprocessors takes where
// they fill more of them, and every device with VKDML_COOPMAT_ROWS=64
// wherever 4 warps gather A (the plans: convolution_coopmat_rows_plan_test.cpp):
// 196 rows (the last tile's 4 a warp's first quad) of 100 columns (two column
// tiles), a 1x1 kernel over 6 x 6 images whose row quads run across rows and
// images, 3x3 with padding over rows of 20 (words straddling quads: the
// high word from the next lane's quad, not across the lanes of another k
// quad) and of 15 (bytes gathered), stride 2, and 49 rows of 16 K steps
// (K split across the grid). Nothing packed, so that A is gathered.
TEST_CASE("convolution_integer: tiles of 64 rows") {
  runWithRows(
      "64", "0",
      {case2d({1, 64, 14, 14}, {100, 64, 1, 1}, 1, 1, 0, 0, 1), case2d({3, 40, 6, 6}, {60, 40, 1, 1}, 1, 1, 0, 0, 1),
       case2d({1, 32, 12, 20}, {48, 32, 3, 3}, 1, 1, 1, 1, 1), case2d({1, 32, 15, 15}, {48, 32, 3, 3}, 1, 1, 1, 1, 1),
       case2d({1, 64, 28, 28}, {64, 64, 1, 1}, 2, 1, 0, 0, 1), case2d({1, 512, 7, 7}, {100, 512, 1, 1}, 1, 1, 0, 0, 1)},
      142, "_m64_");
}

// The same tiles where A comes channels-last (forced): 1100 rows of 3x3
// taps (the last tile's 12 rows), 162 over two images, stride 2 over 225
// rows, two groups of 32 channels, and 49 rows of 72 K steps (K split
// across the grid).
TEST_CASE("convolution_integer: tiles of 64 rows, A channels-last") {
  runWithRows(
      "64", "nhwc",
      {case2d({1, 32, 20, 55}, {48, 32, 3, 3}, 1, 1, 1, 1, 1), case2d({2, 64, 9, 9}, {64, 64, 3, 3}, 1, 1, 1, 1, 1),
       case2d({1, 32, 30, 30}, {40, 32, 3, 3}, 2, 1, 1, 1, 1), case2d({1, 64, 10, 10}, {64, 32, 3, 3}, 1, 1, 1, 1, 2),
       case2d({1, 256, 7, 7}, {60, 256, 3, 3}, 1, 1, 1, 1, 1)},
      143, "_m64_");
}

// The 64-row tiles over random shapes (kernels 1 to 7 wide, 1-D or 2-D,
// strides, dilations and pads up to 3, up to 3 groups of at most 20
// outputs, so that 4 warps take them), A gathered and channels-last.
TEST_CASE("convolution_integer: tiles of 64 rows, random shapes") {
  runWithRows("64", "0", randomCases(144, 4, false), 145, "");
  runWithRows("64", "nhwc", randomCases(146, 4, true), 147, "");
}
