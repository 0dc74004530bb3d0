// The kernels a compile in test::run() must have taken (kernel_checks.cpp).
#pragma once

#include "support.hpp"

namespace test {

// Checks the kernels of `compiled` against what the environment and the
// test's options force, and against test::ExpectKernel.
void checkKernels(const vkdml::Operator& op, const vkdml::CompiledOperator& compiled);

}  // namespace test
