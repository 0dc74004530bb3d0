// What the device tests share (device_test.cpp, device_failures_test.cpp,
// threads_test.cpp).
#pragma once

#include <volk.h>

#include <atomic>
#include <cstdio>
#include <memory>

#include "support.hpp"

namespace test {

// A Join of two 2x3 FLOAT32 tensors on axis 0, used by the binding tests.
struct SmallJoin {
  Tensor a{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}}, b{DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3}};
  Tensor out{DML_TENSOR_DATA_TYPE_FLOAT32, {4, 3}};
  DML_TENSOR_DESC inputs[2];
  DML_JOIN_OPERATOR_DESC join{};
  DML_OPERATOR_DESC desc() {
    inputs[0] = *a.desc();
    inputs[1] = *b.desc();
    join = {2, inputs, out.desc(), 0};
    return {DML_OPERATOR_JOIN, &join};
  }
};

// A Slice1 that reverses n UINT32 elements (out = in[::-1]), used by the
// tests that chain or rebind one compiled operator.
struct Flip {
  UINT sizes[1], offsets[1] = {0}, window[1];
  INT strides[1] = {-1};
  DML_BUFFER_TENSOR_DESC buffer{DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, sizes, nullptr,
                                UINT64(sizes[0]) * 4};
  DML_TENSOR_DESC tensor{DML_TENSOR_TYPE_BUFFER, &buffer};
  DML_SLICE1_OPERATOR_DESC slice{&tensor, &tensor, 1, offsets, window, strides};
  explicit Flip(uint32_t n) : sizes{n}, window{n} {}
  Flip(const Flip&) = delete;  // its descriptors point into it
  Flip& operator=(const Flip&) = delete;
  DML_OPERATOR_DESC desc() { return {DML_OPERATOR_SLICE1, &slice}; }
};

// Loads the Vulkan entry points of `device` into this program's volk.
inline void loadVulkan(vkdml::Device& device) {
  REQUIRE(volkInitialize() == VK_SUCCESS);
  volkLoadInstanceOnly(device.instance());
  volkLoadDevice(device.device());
}

// Options for a Device of a test's own: validation on where installed, each
// message counted in `messages` (which must outlive the Device).
inline vkdml::DeviceOptions countingOptions(std::shared_ptr<std::atomic<int>> messages) {
  vkdml::DeviceOptions options;
  options.validation = true;
  options.onValidationMessage = [messages](const char* message) {
    std::fprintf(stderr, "validation: %s\n", message);
    ++*messages;
  };
  return options;
}

}  // namespace test
