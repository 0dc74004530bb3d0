// The process's memory history: convolutions ran 2-4x slower after
// GiB-sized allocations and frees in the same process, until the cause was
// found to be the GPU's idle clock (bench/results/idle_clocks.md).
#pragma once

#include <vkdml/vkdml.hpp>

#include <vector>

namespace bench {

// Allocates, fills and frees `gib` GiB of device buffers through vkdml, a few
// buffers of assorted sizes at a time as the data-movement cases and the
// tests do, with an upload through a staging buffer each round. A small
// buffer allocated in each round stays alive: returned, for the caller to
// keep until the end, as a long-lived process keeps its small allocations
// between the large ones it frees.
std::vector<vkdml::Buffer> churn(vkdml::Device& device, double gib);

// Prints the memory heaps and types, and what the driver asks of buffers
// of a few sizes (alignment, size, dedicated allocation). Needs volk loaded.
void printMemoryInfo(vkdml::Device& device);

}  // namespace bench
