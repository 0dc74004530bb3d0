// The whole program: a device, "Running on '<device>'", the model parsed,
// its commands executed; errors printed as DxDispatch prints them
// ("Failed to parse the model: file:line:column: ...").
#pragma once

#include <vkdml/vkdml.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "model_parser.hpp"
#include "options.hpp"

namespace dispatch {

// Returns the exit code: 0, 1 for a model or device error, 2 for a usage error.
int runTool(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// Everything after the device is made (the tests run models on theirs).
int runOnDevice(vkdml::Device& device, const Options& options, std::ostream& out, std::ostream& err);
// The reader's limits on a device, checked before anything is read or built:
// a resource holds at most 4 GiB and the device's maxBufferSize, the model's
// resources together at most its largest device-local memory heap.
ParseOptions parseOptions(const vkdml::Device& device, const Options& options);

}  // namespace dispatch
