// Runs a model's commands on a vkdml device as DxDispatch's Executor does:
// buffers created and filled, every dispatchable created and compiled, then
// the commands in order, each waited for. Dispatches are timed with CPU
// clocks and GPU timestamps (in a command buffer of its own).
#pragma once

#include <vkdml/vkdml.hpp>

#include <iosfwd>

#include "model.hpp"
#include "options.hpp"

namespace dispatch {

// Prints to `out` what DxDispatch prints to stdout; throws ModelError (a
// vkdml::Error's message kept whole) when a command fails, a writeFile
// included: the caller prints it, once.
void execute(vkdml::Device& device, const Model& model, const Options& options, std::ostream& out);

}  // namespace dispatch
