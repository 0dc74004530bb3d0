// What the device tests share (device_test.cpp, device_failures_test.cpp).
#pragma once

#include <volk.h>

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

// Loads the Vulkan entry points of `device` into this program's volk.
inline void loadVulkan(vkdml::Device& device) {
  REQUIRE(volkInitialize() == VK_SUCCESS);
  volkLoadInstanceOnly(device.instance());
  volkLoadDevice(device.device());
}

}  // namespace test
