#include "options.hpp"

#include <cerrno>
#include <cstdlib>
#include <functional>

namespace dispatch {

namespace {

uint32_t parseUint32(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = text.empty() || text[0] == '-' ? 0 : std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno == ERANGE || v > UINT32_MAX)
    throw UsageError("option " + option + ": '" + text + "' is not an unsigned 32-bit integer");
  return static_cast<uint32_t>(v);
}

struct Spec {
  const char* shortName;  // "" when none
  const char* longName;
  bool takesValue;
  std::function<void(Options&, const std::string& option, const std::string& value)> apply;
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> kSpecs = {
      {"m", "model", true, [](Options& o, const std::string&, const std::string& v) { o.model = v; }},
      {"h", "help", false, [](Options& o, const std::string&, const std::string&) { o.help = true; }},
      {"i", "dispatch_iterations", true,
       [](Options& o, const std::string& n, const std::string& v) { o.iterations = parseUint32(n, v); }},
      {"", "iterations", true,
       [](Options& o, const std::string& n, const std::string& v) { o.iterations = parseUint32(n, v); }},
      {"r", "dispatch_repeat", true,
       [](Options& o, const std::string& n, const std::string& v) { o.repeat = parseUint32(n, v); }},
      {"t", "milliseconds_to_run", true,
       [](Options& o, const std::string& n, const std::string& v) { o.millisecondsToRun = parseUint32(n, v); }},
      {"I", "dispatch_interval", true,
       [](Options& o, const std::string& n, const std::string& v) { o.intervalMilliseconds = parseUint32(n, v); }},
      {"w", "warmup_samples", true,
       [](Options& o, const std::string& n, const std::string& v) { o.warmupSamples = parseUint32(n, v); }},
      {"v", "timing_verbosity", true,
       [](Options& o, const std::string& n, const std::string& v) {
         o.timingVerbosity = parseUint32(n, v);
         if (o.timingVerbosity > 2) throw UsageError("option " + n + ": must be 0, 1 or 2, not " + v);
       }},
      {"", "max_gpu_time_measurements", true,
       [](Options& o, const std::string& n, const std::string& v) { o.maxGpuTimeMeasurements = parseUint32(n, v); }},
      {"a", "adapter", true, [](Options& o, const std::string&, const std::string& v) { o.adapter = v; }},
      {"s", "show_adapters", false, [](Options& o, const std::string&, const std::string&) { o.showAdapters = true; }},
      {"l", "list", false, [](Options& o, const std::string&, const std::string&) { o.list = true; }},
      {"d", "debug", false, [](Options& o, const std::string&, const std::string&) { o.debug = true; }},
      {"", "input_path", true, [](Options& o, const std::string&, const std::string& v) { o.inputPath = v; }},
      {"", "output_path", true, [](Options& o, const std::string&, const std::string& v) { o.outputPath = v; }},
      {"", "post_dispatch_barriers", true,
       [](Options& o, const std::string& n, const std::string& v) {
         if (v != "none" && v != "uav" && v != "uav+aliasing")
           throw UsageError("option " + n + ": must be none, uav or uav+aliasing, not '" + v + "'");
         o.postDispatchBarrier = v != "none";
       }},
  };
  return kSpecs;
}

}  // namespace

Options parseCommandLine(const std::vector<std::string>& args) {
  Options o;
  if (args.empty()) o.help = true;  // as DxDispatch: no arguments, the help
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') {
      if (!o.model.empty()) throw UsageError("more than one model: '" + o.model + "' and '" + a + "'");
      o.model = a;
      continue;
    }
    bool isLong = a.compare(0, 2, "--") == 0;
    std::string name =
        isLong ? a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2) : a.substr(1, 1);
    const Spec* spec = nullptr;
    for (const auto& s : specs())
      if (name == (isLong ? s.longName : s.shortName)) spec = &s;
    if (!spec || name.empty()) throw UsageError("unknown option '" + a + "'");
    std::string value;
    bool inlineValue = isLong ? a.find('=') != std::string::npos : a.size() > 2;
    if (inlineValue) {
      if (!spec->takesValue) throw UsageError("option '" + a + "' takes no value");
      value = isLong ? a.substr(a.find('=') + 1) : a.substr(2);
    } else if (spec->takesValue) {
      if (i + 1 >= args.size()) throw UsageError("option '" + a + "' needs a value");
      value = args[++i];
    }
    spec->apply(o, a, value);
  }
  if (!o.help && !o.showAdapters && !o.list && o.model.empty()) throw UsageError("no model given");
  return o;
}

std::string usage() {
  return R"(vkdml-dispatch: runs DxDispatch JSON models (DirectML operators) on vkdml
usage: vkdml-dispatch [options] <PATH_TO_MODEL>

  -m, --model PATH                 the model (.json), or give it as the last argument
  -h, --help                       this help
  -i, --dispatch_iterations N      run each dispatch N times (default 1; also --iterations)
  -r, --dispatch_repeat N          dispatches recorded per iteration (default 1)
  -t, --milliseconds_to_run MS     iterate until MS milliseconds have passed (overrides -i)
  -I, --dispatch_interval MS       the least time per iteration (sleeps)
  -w, --warmup_samples N           the first N samples are "cold" (default 1)
  -v, --timing_verbosity 0|1|2     0: medians; 1: cold/hot statistics, initialization
                                   times and warnings about ignored fields; 2: every iteration
      --max_gpu_time_measurements N  GPU samples kept (default 8192; 0: no GPU timing)
  -a, --adapter DEVICE             device index or name substring (as VKDML_DEVICE)
  -s, --show_adapters              list the Vulkan devices
  -l, --list                       list the Vulkan devices, and the features vkdml uses of the
                                   one -a selects (subgroups, dot products, cooperative matrices)
  -d, --debug                      Vulkan validation layers on (a message fails the run)
      --input_path DIR             base folder for initialValues' sourcePath (default: the model's)
      --output_path DIR            base folder for writeFile (default: the current one)
      --post_dispatch_barriers none|uav|uav+aliasing
                                   barrier after each repeated dispatch (default uav)

Operators: DML_OPERATOR_SLICE1, JOIN, SCATTER_ND, DIAGONAL_MATRIX1, CONVOLUTION_INTEGER,
and SLICE and DIAGONAL_MATRIX (lowered to SLICE1 and DIAGONAL_MATRIX1).
Exit codes: 0 success, 1 a model or device error, 2 a usage error.
)";
}

}  // namespace dispatch
