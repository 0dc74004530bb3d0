// The whole program: a device, "Running on '<device>'", the model parsed,
// its commands executed; errors printed as DxDispatch prints them
// ("Failed to parse the model: file:line:column: ...").
#pragma once

#include <vkdml/vkdml.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "options.hpp"

namespace dispatch {

// Returns the exit code: 0, 1 for a model or device error, 2 for a usage error.
int runTool(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// Everything after the device is made (the tests run models on theirs).
int runOnDevice(vkdml::Device& device, const Options& options, std::ostream& out, std::ostream& err);

}  // namespace dispatch
