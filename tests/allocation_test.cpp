// $VKDML_ALLOCATION: the opt-in ways of allocating device-local memory
// (bench/RESULTS.md measures them) change where buffers live, never what
// they hold or what the caller may bind.
#include <algorithm>

#include "small_operators.hpp"
#include "support.hpp"

TEST_CASE("device: VKDML_ALLOCATION=align2m,dedicated keeps buffers' sizes and contents, rejects unknown items") {
  for (const char* setting : {"align2m", "dedicated", "align2m,dedicated", ",dedicated,"}) {
    CAPTURE(setting);
    test::ScopedEnvironment environment("VKDML_ALLOCATION", setting);
    // Below and above the 4 MiB from which align2m rounds, neither a
    // multiple of 2 MiB.
    for (uint64_t bytes : {uint64_t(1000), (uint64_t(4) << 20) + 12, (uint64_t(5) << 20) + 4}) {
      CAPTURE(bytes);
      vkdml::Buffer buffer = test::device().createBuffer(bytes);
      CHECK(buffer.size() == bytes);
      buffer.fill(0x01020304u, bytes & ~uint64_t(3));
      std::vector<uint8_t> tail(256);
      for (size_t i = 0; i < tail.size(); ++i) tail[i] = static_cast<uint8_t>(i * 7 + 1);
      buffer.upload(tail.data(), tail.size(), bytes - tail.size());
      std::vector<uint8_t> back(bytes);
      buffer.download(back.data(), bytes);
      CHECK(back[0] == 0x04);
      CHECK(back[bytes - tail.size() - 1] == 0x01);
      CHECK(std::equal(tail.begin(), tail.end(), back.end() - static_cast<std::ptrdiff_t>(tail.size())));
      // Ranges are checked against the size asked for, not the rounded one.
      CHECK_THROWS_AS(buffer.upload(tail.data(), 1, bytes), vkdml::Error);
    }
    auto op = test::smallJoin();
    CHECK(test::runSmall(test::device(), *op) == "");
  }
  test::ScopedEnvironment unknown("VKDML_ALLOCATION", "align2m,huge");
  try {
    test::device().createBuffer(1000);
    FAIL("an unknown VKDML_ALLOCATION item must be rejected");
  } catch (const vkdml::Error& e) {
    CHECK(e.code() == vkdml::ErrorCode::InvalidArgument);
    CHECK(e.field() == "VKDML_ALLOCATION");
    CHECK(std::string(e.what()).find("\"huge\"") != std::string::npos);
  }
}
