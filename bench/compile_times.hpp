// How long compileOperator takes for a set of convolutions: cold (a fresh
// Device) and with the pipeline cache blob of that first Device
// (DeviceOptions::pipelineCacheData), as a user loading a network pays it;
// and all of them at once through Device::compileOperators.
#pragma once

#include <vector>

#include "cases.hpp"

namespace bench {

// Compiles each case (through Auto) on a fresh Device, then again on a
// Device created with the first one's pipelineCacheData(); prints each
// case's two times and the totals. For the driver's own disk cache to stay
// out of "cold", turn it off in the environment (NVIDIA:
// __GL_SHADER_DISK_CACHE=0).
void printCompileTimes(const std::vector<Case*>& cases);

}  // namespace bench
