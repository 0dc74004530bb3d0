// The test runner: doctest's, plus a final check that releasing the device
// (after every buffer and operator is gone) draws no validation message and
// leaves no reference behind.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdio>

#include "support.hpp"

namespace test {
std::shared_ptr<vkdml::Device>& deviceSlot();
int& messagesOutsideTests();
}  // namespace test

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
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
