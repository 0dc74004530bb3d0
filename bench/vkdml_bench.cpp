// vkdml_bench: times operators on the chosen device (VKDML_DEVICE) with
// Vulkan timestamp queries: a warm-up, then the median of several runs. Each
// bandwidth-bound case is reported in GB/s (bytes read + written) next to a
// copy of the same bytes measured in the same run: the faster of
// vkCmdCopyBuffer and a compute-shader copy (both are in the JSON).
//
//   vkdml_bench [--large] [--reps N] [--warmup N] [--warm-ms MS] [--filter TEXT] [--exclude TEXT]
//               [--path PATH] [--json FILE] [--list] [--churn-gib GIB] [--churn-wait-ms MS] [--memory-info]
//               [--owned-weights] [--channels-last] [--channels-last-output] [--execute] [--int8]
//               [--copy-probe]
//
// --filter TEXT selects the cases whose "op name" holds TEXT, or one of
// its '|'-separated alternatives. --path takes a comma-separated list of
// paths; auto (only where listed) compiles convolutions with the default
// options. --list prints the selected cases' names (the text --filter
// matches) without running them. --churn-gib allocates, fills and frees
// that much device memory before the cases (bench/memory.hpp); then the GPU
// idles for --churn-wait-ms (with or without a churn). --warm-ms (default
// 1000 on a GPU, 0 on a CPU device): where the GPU has had no work for half
// a second (a fresh process, a pause), each case first runs back to back
// for that long, since an idle GPU lowers its clocks within seconds and
// takes its first work at them (bench/results/idle_clocks.md).
// --owned-weights flags each convolution's filter DML_TENSOR_FLAG_OWNED_BY_DML,
// as an inference runtime does with a model's constant weights, and runs the
// initializer once before the timed executions. --channels-last lays each
// convolution's input and filter out with their channels innermost (NHWC,
// OHWI strides; the output stays NCHW unless --channels-last-output lays it
// out NHWC too). --execute times
// Device::execute on the host (a submission and its wait each): record(),
// which the other timings bracket with timestamps, takes the kernel plan,
// never a CPU device's transfer commands. --int8 makes the convolutions
// INT8 x INT8 without zero points, torch._int_mm's arithmetic (by default
// they are UINT8 x INT8 with per-tensor zero points, which the kernels fold
// in with row and column sums). --copy-probe times copies of 1 GiB instead of
// the cases: vkCmdCopyBuffer, and the copy limit's kernel over grids from
// 1024 workgroups up, with 1 and 4 vectors per invocation (copy_limit.hpp).
#include <volk.h>

#include <vkdml/vkdml.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cases.hpp"
#include "compile_times.hpp"
#include "copy_limit.hpp"
#include "memory.hpp"
#include "probes.hpp"
#include "timing.hpp"

namespace {

using bench::Timer;

struct Options {
  bool large = false;
  int reps = 10;
  int warmup = 3;
  int warmMs = -1;  // -1: by device type
  std::string filter;
  std::string path;     // convolutions through these paths only (portable,dot,coopmat,auto)
  std::string exclude;  // leave out the cases whose "op name" contains this
  std::string json;
  bool list = false;
  double churnGib = 0;
  int churnWaitMs = 0;
  bool memoryInfo = false;
  bool copyProbe = false;  // --copy-probe: the copy limit over grids and vectors per invocation, no cases
  bool compileTimes = false;
  bool ownedWeights = false;
  bool channelsLast = false;                            // --channels-last: convolutions' inputs NHWC, filters OHWI
  bool channelsLastOutput = false;                      // --channels-last-output: convolutions' outputs NHWC
  vkdml::DeviceInfo::MatrixShape matrixShape{0, 0, 0};  // --matrix-shape: CompileOptions::matrixShape
  bool execute = false;
  bool int8 = false;  // --int8: convolutions INT8 x INT8 without zero points
};

// Device::execute timed on the host, one submission and its wait each: the
// plan with transfer commands (a CPU device's data movement), which record()
// never takes.
double executeMedian(vkdml::Device& device, const vkdml::CompiledOperator& compiled, const vkdml::BindingTable& table,
                     int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) device.execute(compiled, table);
  std::vector<double> ns;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    device.execute(compiled, table);
    ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

const char* const kUsage =
    "usage: %s [--large] [--reps N] [--warmup N] [--warm-ms MS] [--filter TEXT] [--exclude TEXT] [--path PATH]\n"
    "       [--json FILE] [--list] [--churn-gib GIB] [--churn-wait-ms MS] [--memory-info] [--owned-weights]\n"
    "       [--channels-last]  (convolutions' inputs NHWC and filters OHWI, by strides; outputs NCHW)\n"
    "       [--channels-last-output]  (convolutions' outputs NHWC, by strides)\n"
    "       [--matrix-shape MxNxK]  (the cooperative-matrix fragment, CompileOptions::matrixShape)\n"
    "       [--execute]  (times Device::execute on the host, the plan with transfer commands, not record())\n"
    "       [--int8]  (convolutions INT8 x INT8 without zero points, as torch._int_mm; default UINT8 x INT8 with)\n"
    "       [--compile-times]  (the selected convolutions' compileOperator times, cold and with a pipeline cache "
    "blob)\n"
    "       [--copy-probe]  (copies of 1 GiB over grids and vectors per invocation, instead of the cases)\n";

// Whether one of the '|'-separated alternatives of `filter` is a substring
// of `text` (reversed: `text` of one of them). An empty filter matches all.
bool matches(const std::string& filter, const std::string& text, bool reversed = false) {
  size_t start = 0;
  do {
    const size_t end = std::min(filter.find('|', start), filter.size());
    const std::string part = filter.substr(start, end - start);
    if ((reversed ? part.find(text) : text.find(part)) != std::string::npos) return true;
    start = end + 1;
  } while (start <= filter.size());
  return false;
}

// Whether the options select the case: opt-in cases only where --filter
// names them.
bool selected(const Options& options, const bench::Case& c) {
  const std::string opName = c.op + " " + c.name;
  if (c.optIn && options.filter.empty()) return false;
  if (!matches(options.filter, opName)) return false;
  return options.exclude.empty() || opName.find(options.exclude) == std::string::npos;
}

struct Result {
  std::string op, name, shape, dtype, path, gemm, convolution, network, kernels;
  int count = 0;
  double bytes = 0;                                                          // read + written
  double ns = 0, copyNs = 0, transferNs = 0, computeNs = 0, operations = 0;  // copyNs: the faster copy
  double cappedCopyNs = 0;  // the compute copy over at most 8192 workgroups (computeNs: the faster grid)
  double outputFillNs = 0;  // convolutions: vkCmdFillBuffer over the output, a floor for writing it
};

std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void writeJson(const std::string& path, const std::string& device, const Options& options,
               const std::vector<Result>& results) {
  std::ofstream out(path);
  const char* allocation = std::getenv("VKDML_ALLOCATION");
  out << "{\n  \"device\": \"" << jsonEscape(device) << "\",\n  \"allocation\": \""
      << jsonEscape(allocation ? allocation : "") << "\",\n  \"churn_gib\": " << options.churnGib
      << ",\n  \"churn_wait_ms\": " << options.churnWaitMs
      << ",\n  \"owned_weights\": " << (options.ownedWeights ? "true" : "false")
      << ",\n  \"channels_last\": " << (options.channelsLast ? "true" : "false")
      << ",\n  \"channels_last_output\": " << (options.channelsLastOutput ? "true" : "false")
      << ",\n  \"results\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    out << "    {\"operator\": \"" << r.op << "\", \"case\": \"" << jsonEscape(r.name) << "\", \"shape\": \"" << r.shape
        << "\", \"dtype\": \"" << r.dtype << "\", \"bytes\": " << r.bytes << ", \"median_ns\": " << r.ns;
    if (!r.path.empty()) out << ", \"path\": \"" << r.path << "\"";
    if (!r.gemm.empty()) out << ", \"gemm\": \"" << r.gemm << "\", \"convolution\": \"" << r.convolution << "\"";
    if (!r.kernels.empty()) out << ", \"kernels\": \"" << r.kernels << "\"";
    if (!r.network.empty()) out << ", \"network\": \"" << r.network << "\", \"count\": " << r.count;
    if (r.bytes)
      out << ", \"gbps\": " << r.bytes / r.ns << ", \"copy_gbps\": " << r.bytes / r.copyNs
          << ", \"ratio_to_copy\": " << r.copyNs / r.ns << ", \"copy_buffer_gbps\": " << r.bytes / r.transferNs
          << ", \"compute_copy_gbps\": " << r.bytes / r.computeNs
          << ", \"capped_compute_copy_gbps\": " << r.bytes / r.cappedCopyNs;
    if (r.operations) out << ", \"tops\": " << r.operations / r.ns / 1e3;
    if (r.outputFillNs) out << ", \"output_fill_ns\": " << r.outputFillNs;
    out << "}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--large")
      options.large = true;
    else if (a == "--reps")
      options.reps = std::max(1, std::stoi(next()));
    else if (a == "--filter")
      options.filter = next();
    else if (a == "--path")
      options.path = next();
    else if (a == "--matrix-shape") {
      const std::string shape = next();
      if (std::sscanf(shape.c_str(), "%ux%ux%u", &options.matrixShape.m, &options.matrixShape.n,
                      &options.matrixShape.k) != 3) {
        std::fprintf(stderr, "--matrix-shape takes MxNxK, not %s\n", shape.c_str());
        return 2;
      }
    } else if (a == "--exclude")
      options.exclude = next();
    else if (a == "--json")
      options.json = next();
    else if (a == "--warmup")
      options.warmup = std::max(0, std::stoi(next()));
    else if (a == "--warm-ms")
      options.warmMs = std::max(0, std::stoi(next()));
    else if (a == "--list")
      options.list = true;
    else if (a == "--churn-gib")
      options.churnGib = std::max(0.0, std::stod(next()));
    else if (a == "--churn-wait-ms")
      options.churnWaitMs = std::max(0, std::stoi(next()));
    else if (a == "--owned-weights")
      options.ownedWeights = true;
    else if (a == "--channels-last")
      options.channelsLast = true;
    else if (a == "--channels-last-output")
      options.channelsLastOutput = true;
    else if (a == "--memory-info")
      options.memoryInfo = true;
    else if (a == "--copy-probe")
      options.copyProbe = true;
    else if (a == "--compile-times")
      options.compileTimes = true;
    else if (a == "--execute")
      options.execute = true;
    else if (a == "--int8")
      options.int8 = true;
    else {
      std::fprintf(a == "--help" ? stdout : stderr, kUsage, argv[0]);
      return a == "--help" ? 0 : 2;
    }
  }
  bench::Cases cases;
  // The small tensors first: behind gigabyte-sized cases their one dispatch
  // reads slower, and by varying amounts (bench/results/data_movement.md).
  bench::addLatencyCases(cases);
  bench::addDataMovementCases(cases, options.large);
  bench::addConvolutionCases(cases, options.large, options.int8);
  bench::addResNet50Cases(cases, options.large, options.int8);
  if (options.list) {
    for (auto& c : cases)
      if (selected(options, *c)) std::printf("%s %s\n", c->op.c_str(), c->name.c_str());
    return 0;
  }
  try {
    if (options.compileTimes) {
      std::vector<bench::Case*> convolutions;
      for (auto& c : cases)
        if (c->op == "conv" && selected(options, *c)) convolutions.push_back(c.get());
      bench::printCompileTimes(convolutions);
      return 0;
    }
    auto device = vkdml::Device::create();
    if (volkInitialize() != VK_SUCCESS) throw std::runtime_error("no Vulkan loader");
    volkLoadInstanceOnly(device->instance());
    volkLoadDevice(device->device());
    const auto& info = device->info();
    if (info.timestampPeriodNs == 0) throw std::runtime_error(info.name + " has no timestamp queries");
    if (options.warmMs < 0) options.warmMs = info.type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0 : 1000;
    std::printf("device: %s, %s (%s sizes, median of %d runs after %d warm-up; %d ms busy after a pause%s)\n",
                info.name.c_str(), info.driver.c_str(), options.large ? "large" : "default", options.reps,
                options.warmup, options.warmMs, options.ownedWeights ? "; weights owned by DML" : "");
    if (options.memoryInfo) bench::printMemoryInfo(*device);
    std::vector<vkdml::Buffer> keptByChurn;
    if (options.churnGib > 0) keptByChurn = bench::churn(*device, options.churnGib);
    std::this_thread::sleep_for(std::chrono::milliseconds(options.churnWaitMs));  // the GPU idles
    Timer timer(*device, options.warmMs);
    if (options.copyProbe) {
      bench::copyProbe(*device, timer, options.warmup, options.reps);
      return 0;
    }
    const bench::ComputeCopy computeCopy(*device);
    std::vector<Result> results;
    std::printf("%-8s %-38s %-22s %-8s %10s %11s %9s %9s %6s\n", "op", "case", "shape", "dtype", "MB", "median us",
                "GB/s", "copy GB/s", "ratio");
    // A convolution runs once per path the device has; everything else once.
    auto runCase = [&](bench::Case& c, const vkdml::CompileOptions& compileOptions, const std::string& path) {
      if (c.weights)
        c.weights->buffer.Flags = options.ownedWeights ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE;
      for (bench::TensorSpec* t : {c.weights, c.activations})
        if (t) bench::layChannelsLast(*t, options.channelsLast);
      if (c.result) bench::layChannelsLast(*c.result, options.channelsLastOutput);
      vkdml::CompiledOperator compiled = device->compileOperator(device->createOperator(c.desc), compileOptions);
      std::vector<vkdml::Buffer> inputs, outputs;
      std::vector<vkdml::BufferBinding> inputBindings, outputBindings;
      inputs.reserve(c.inputs.size());
      for (auto* t : c.inputs) {
        if (!t) {
          inputs.emplace_back();
          inputBindings.push_back({});
          continue;
        }
        uint64_t bytes = t->buffer.TotalTensorSizeInBytes;
        inputs.push_back(device->createBuffer(bytes));
        inputs.back().fill(0x3F800000u, bytes & ~uint64_t(3));  // 1.0f; 0x00 / 0x80 / 0x3F as 8-bit
        inputBindings.push_back({&inputs.back(), 0, bytes});
      }
      if (c.prepare) c.prepare(inputs);
      outputs.reserve(c.outputs.size());
      for (auto* t : c.outputs) {
        uint64_t bytes = t->buffer.TotalTensorSizeInBytes;
        outputs.push_back(device->createBuffer(bytes));
        outputBindings.push_back({&outputs.back(), 0, bytes});
      }
      vkdml::BindingTable table = compiled.createBindingTable();
      table.bindInputs(inputBindings);
      table.bindOutputs(outputBindings);
      device->initialize(compiled, table);  // records nothing without owned inputs

      Result r;
      r.op = c.op;
      r.name = c.name;
      r.shape = c.shape;
      r.dtype = c.dtype;
      r.path = path;
      r.gemm = c.gemm;
      r.convolution = c.convolution;
      r.network = c.network;
      r.count = c.count;
      if (c.op == "conv")
        for (const std::string& k : compiled.kernelNames()) r.kernels += (r.kernels.empty() ? "" : "+") + k;
      r.bytes = static_cast<double>(c.bytesMoved);
      r.operations = c.operations;
      r.ns = options.execute ? executeMedian(*device, compiled, table, options.warmup, options.reps)
                             : timer.median([&](VkCommandBuffer cmd) { compiled.record(cmd, table); }, options.warmup,
                                            options.reps);
      if (c.bytesMoved) {
        // The limit: the faster of vkCmdCopyBuffer and a compute-shader copy
        // that read and write as many bytes.
        uint64_t half = (c.bytesMoved / 2 + 15) & ~uint64_t(15);
        vkdml::Buffer src = device->createBuffer(half), dst = device->createBuffer(half);
        r.transferNs = timer.median(
            [&](VkCommandBuffer cmd) {
              VkBufferCopy region{0, 0, half};
              vkCmdCopyBuffer(cmd, src.handle(), dst.handle(), 1, &region);
            },
            options.warmup, options.reps);
        // The compute copy over at most 8192 workgroups, and over one
        // workgroup per 256 vectors: which is faster depends on the device
        // and the size (bench/results/data_movement.md, 2026-12-07).
        r.cappedCopyNs = timer.median([&](VkCommandBuffer cmd) { computeCopy.record(cmd, src, dst, half); },
                                      options.warmup, options.reps);
        const uint32_t full = computeCopy.fullGrid(info, half);
        r.computeNs =
            full <= 8192
                ? r.cappedCopyNs
                : std::min(r.cappedCopyNs,
                           timer.median([&](VkCommandBuffer cmd) { computeCopy.record(cmd, src, dst, half, full); },
                                        options.warmup, options.reps));
        r.copyNs = std::min(r.transferNs, r.computeNs);
        std::printf("%-8s %-38s %-22s %-8s %10.1f %11.1f %9.1f %9.1f %6.2f\n", r.op.c_str(), r.name.c_str(),
                    r.shape.c_str(), r.dtype.c_str(), r.bytes / 1e6, r.ns / 1e3, r.bytes / r.ns, r.bytes / r.copyNs,
                    r.copyNs / r.ns);
      } else {
        // What writing the output alone takes: the floor for a convolution
        // whose int32 output outweighs its inputs and its multiplies.
        r.outputFillNs = timer.median(
            [&](VkCommandBuffer cmd) {
              // The tensor's bytes, not VK_WHOLE_SIZE: VKDML_ALLOCATION=align2m makes the VkBuffer larger.
              vkCmdFillBuffer(cmd, outputs.at(0).handle(), 0, outputs.at(0).size() & ~uint64_t(3), 0);
            },
            options.warmup, options.reps);
        std::printf("%-8s %-38s %-22s %-8s %10s %11.1f %9.3f TOPS  (output fill %.1f us)\n", r.op.c_str(),
                    (r.name + " [" + path + "]").c_str(), r.shape.c_str(), r.dtype.c_str(), "-", r.ns / 1e3,
                    r.operations / r.ns / 1e3, r.outputFillNs / 1e3);
      }
      std::fflush(stdout);
      results.push_back(r);
    };

    // The int8 ceilings (bench/probes.hpp).
    auto probeResult = [&](const char* op, const bench::ProbeRun& run) {
      Result r;
      r.op = op;
      r.name = run.name;
      r.shape = run.shape;
      r.dtype = "INT8";
      r.ns = run.ns;
      r.operations = run.operations;
      std::printf("%-8s %-42s %-30s %-8s %10s %11.1f %9.3f TOPS\n", r.op.c_str(), r.name.c_str(), r.shape.c_str(),
                  r.dtype.c_str(), "-", r.ns / 1e3, r.operations / r.ns / 1e3);
      results.push_back(r);
    };
    if (info.integerDotProduct && matches(options.filter, "dot peak", true))
      probeResult("dotpeak", bench::dotProbe(*device, timer, options.warmup, options.reps));
    if (info.cooperativeMatrixInt8 && matches(options.filter, "coopmat peak", true))
      for (const bench::ProbeRun& run : bench::coopmatProbes(*device, timer, options.warmup, options.reps))
        probeResult("coopmat", run);
    bool failed = false;
    for (auto& c : cases) {
      if (!selected(options, *c)) continue;
      if (c->op != "conv") {
        runCase(*c, {}, "");
        continue;
      }
      for (vkdml::ConvolutionPath path : {vkdml::ConvolutionPath::Portable, vkdml::ConvolutionPath::DotProduct,
                                          vkdml::ConvolutionPath::CooperativeMatrix,
                                          vkdml::ConvolutionPath::CooperativeMatrixKHR, vkdml::ConvolutionPath::Auto}) {
        // Auto only where asked for: the forced paths already cover it.
        if (options.path.empty() && path == vkdml::ConvolutionPath::Auto) continue;
        if (!options.path.empty() &&
            ("," + options.path + ",").find(std::string(",") + vkdml::toString(path) + ",") == std::string::npos)
          continue;
        try {
          vkdml::CompileOptions compileOptions;
          compileOptions.convolutionPath = path;
          compileOptions.matrixShape = options.matrixShape;
          runCase(*c, compileOptions, vkdml::toString(path));
        } catch (const vkdml::Error& e) {
          if (e.code() == vkdml::ErrorCode::Unsupported) continue;
          // The other cases still run and the JSON is still written: one
          // shape's failure must not cost a long run's figures.
          std::fprintf(stderr, "vkdml_bench: %s [%s]: %s\n", c->name.c_str(), vkdml::toString(path), e.what());
          failed = true;
        }
      }
    }
    if (!options.json.empty()) writeJson(options.json, info.name, options, results);
    if (failed) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vkdml_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
