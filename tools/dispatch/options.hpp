// vkdml-dispatch's command line: DxDispatch's option names where they
// apply (cxxopts forms: "-i 5", "-i5", "--dispatch_iterations 5",
// "--dispatch_iterations=5").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dispatch {

struct Options {
  std::string model;
  bool help = false;
  uint32_t iterations = 1;                    // -i, --dispatch_iterations (--iterations)
  uint32_t repeat = 1;                        // -r, --dispatch_repeat
  std::optional<uint32_t> millisecondsToRun;  // -t, --milliseconds_to_run
  uint32_t intervalMilliseconds = 0;          // -I, --dispatch_interval
  uint32_t warmupSamples = 1;                 // -w, --warmup_samples
  uint32_t timingVerbosity = 0;               // -v, --timing_verbosity 0|1|2
  uint32_t maxGpuTimeMeasurements = 8192;     // 0: no GPU timing
  std::string adapter;                        // -a, --adapter: index or name substring (as VKDML_DEVICE)
  bool showAdapters = false;                  // -s, --show_adapters
  bool list = false;                          // -l, --list: the devices and the selected one's features
  bool debug = false;                         // -d, --debug: Vulkan validation layers
  std::string inputPath, outputPath;          // --input_path, --output_path
  bool postDispatchBarrier = true;            // --post_dispatch_barriers none|uav|uav+aliasing
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws UsageError for an unknown option or a malformed value.
Options parseCommandLine(const std::vector<std::string>& args);
std::string usage();

}  // namespace dispatch
