// volk first: it declares Vulkan's functions as pointers (vkdml.hpp includes vulkan_core.h).
#include <volk.h>

#include "executor.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <numeric>
#include <ostream>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>

#include "descriptors.hpp"
#include "npy.hpp"
#include "printer.hpp"
#include "resource_init.hpp"

namespace dispatch {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string format(const char* fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, value);
  return buffer;
}

// DxDispatch's Timings::Stats over a run of samples.
struct Stats {
  size_t count = 0;
  double average = 0, median = 0, min = 0, max = 0;
};
Stats statsOf(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.average = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  s.median = samples[samples.size() / 2];
  s.min = samples.front();
  s.max = samples.back();
  return s;
}
// The first samples (at most maxWarmup, always leaving one) are cold.
std::pair<Stats, Stats> coldAndHot(const std::vector<double>& samples, size_t maxWarmup) {
  if (samples.empty()) return {};
  size_t cold = std::min(samples.size() - 1, maxWarmup);
  return {statsOf({samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(cold)}),
          statsOf({samples.begin() + static_cast<std::ptrdiff_t>(cold), samples.end()})};
}
std::string statsLine(const char* label, const Stats& s) {
  return std::string(label) + " : " + std::to_string(s.count) + " samples, " + format("%.4f", s.average) +
         " ms average, " + format("%.4f", s.min) + " ms min, " + format("%.4f", s.median) + " ms median, " +
         format("%.4f", s.max) + " ms max";
}

// GPU timestamps around each iteration's dispatches, through vkdml's
// device with the caller's own Vulkan calls (volk).
class GpuTimer {
 public:
  GpuTimer(vkdml::Device& device, uint32_t maxSamples) : device_(device) {
    if (volkInitialize() != VK_SUCCESS) throw std::runtime_error("no Vulkan loader");
    volkLoadInstanceOnly(device.instance());
    volkLoadDeviceTable(&vk_, device.device());
    if (maxSamples == 0 || device.info().timestampPeriodNs == 0) return;
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device.physicalDevice(), &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(device.physicalDevice(), &count, families.data());
    const uint32_t bits =
        device.queueFamilyIndex() < count ? families[device.queueFamilyIndex()].timestampValidBits : 0;
    if (bits == 0) return;
    mask_ = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 2;
    if (vk_.vkCreateQueryPool(device.device(), &info, nullptr, &pool_) != VK_SUCCESS) pool_ = VK_NULL_HANDLE;
  }
  ~GpuTimer() {
    if (pool_) vk_.vkDestroyQueryPool(device_.device(), pool_, nullptr);
  }
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  // Records `work` between two timestamps (when timing), submits and waits.
  void run(const std::function<void(VkCommandBuffer)>& work) {
    device_.submitAndWait([&](VkCommandBuffer cmd) {
      if (pool_) {
        vk_.vkCmdResetQueryPool(cmd, pool_, 0, 2);
        vk_.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool_, 0);
      }
      work(cmd);
      if (pool_) vk_.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, 1);
    });
  }
  // The last run's GPU time in milliseconds, if timed.
  std::optional<double> lastMilliseconds() {
    if (!pool_) return std::nullopt;
    uint64_t stamps[2] = {};
    if (vk_.vkGetQueryPoolResults(device_.device(), pool_, 0, 2, sizeof stamps, stamps, 8,
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
      return std::nullopt;
    return double((stamps[1] - stamps[0]) & mask_) * device_.info().timestampPeriodNs / 1e6;
  }
  // Orders one recorded dispatch before the next (DxDispatch's post-dispatch UAV barrier).
  void barrier(VkCommandBuffer cmd) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vk_.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b,
                             0, nullptr, 0, nullptr);
  }

 private:
  vkdml::Device& device_;
  VolkDeviceTable vk_{};
  VkQueryPool pool_ = VK_NULL_HANDLE;
  uint64_t mask_ = 0;
};

struct Prepared {
  const Dispatchable* model;
  std::unique_ptr<BuiltDescriptor> built;
  vkdml::Operator op;
  vkdml::CompiledOperator compiled;
  // Its persistent resource, filled by the initializer at the first dispatch
  // (from the OWNED_BY_DML inputs bound then), as DxDispatch initializes.
  vkdml::Buffer persistent;
};

class Executor {
 public:
  Executor(vkdml::Device& device, const Model& model, const Options& options, std::ostream& out)
      : device_(device), model_(model), options_(options), out_(out) {
    for (const auto& r : model_.resources) resources_.emplace(r.name, &r);
  }

  void run() {
    createResources();
    createDispatchables();
    initializeDispatchables();
    for (const auto& command : model_.commands)
      std::visit([&](const auto& c) { runCommand(c, command.where); }, command.command);
  }

 private:
  // Each buffer is made before its contents, which go up a piece at a time:
  // a size the device refuses costs nothing, and the host holds one piece.
  void createResources() {
    constexpr uint64_t kPiece = uint64_t(64) << 20;  // vkdml's staging buffer
    for (const auto& r : model_.resources) {
      try {
        vkdml::Buffer buffer = device_.createBuffer(r.sizeInBytes);
        ContentsWriter contents(r);
        std::vector<uint8_t> piece(std::min(r.sizeInBytes, kPiece));
        for (uint64_t offset = 0; offset < r.sizeInBytes; offset += piece.size()) {
          const size_t n = static_cast<size_t>(std::min<uint64_t>(piece.size(), r.sizeInBytes - offset));
          contents.next(piece.data(), n);
          buffer.upload(piece.data(), n, offset);
        }
        buffers_.emplace(r.name, buffer);
      } catch (const vkdml::Error& e) {
        throw ModelError(r.where, "resource '" + r.name + "': " + e.what());
      } catch (const std::bad_alloc&) {
        throw ModelError(r.where, "resource '" + r.name + "': out of host memory");
      }
    }
  }

  void createDispatchables() {
    for (const auto& d : model_.dispatchables) {
      Prepared p{&d, buildDescriptor(d), {}, {}};
      try {
        p.op = device_.createOperator(p.built->desc);
      } catch (const vkdml::Error& e) {
        throw ModelError(d.locate(e.field()), "ERROR creating dispatchable '" + d.name + "': " + e.what());
      }
      prepared_.push_back(std::move(p));
    }
  }

  void initializeDispatchables() {
    for (auto& p : prepared_) {
      auto start = Clock::now();
      out_ << (p.model->compileGraph ? "Compiling op using IDMLDevice1::CompileGraph" : "Compile Op") << std::endl;
      try {
        p.compiled = device_.compileOperator(p.op);
      } catch (const vkdml::Error& e) {
        throw ModelError(p.model->where, "ERROR while initializing '" + p.model->name + "': " + e.what());
      }
      if (options_.timingVerbosity >= 1) {
        out_ << "Initialize '" << p.model->name << "': " << format("%.4f", millisecondsSince(start)) << " ms"
             << std::endl;
        const vkdml::BindingProperties properties = p.compiled.bindingProperties();
        out_ << "Binding properties '" << p.model->name << "': temporary " << properties.temporaryResourceSize
             << " bytes, persistent " << properties.persistentResourceSize << " bytes" << std::endl;
      }
    }
  }

  Prepared& prepared(const std::string& name) {
    if (preparedByName_.empty())
      for (auto& p : prepared_) preparedByName_.emplace(p.model->name, &p);
    auto it = preparedByName_.find(name);
    if (it == preparedByName_.end())
      throw ModelError({}, "no dispatchable '" + name + "'");  // names were checked when parsed
    return *it->second;
  }

  const Resource& resource(const std::string& name) const {
    auto it = resources_.find(name);
    if (it == resources_.end()) throw ModelError({}, "no resource '" + name + "'");  // names were checked when parsed
    return *it->second;
  }

  // The bindings of a dispatch, in DirectML's order: each bind point's
  // resources from the command, else from the dispatchable's own
  // initialization bindings (OWNED_BY_DML tensors: bound for the
  // initializer, and ignored by executions), else none. `inputSources` and
  // `outputSources` say which binding of the model each one is (null: none).
  void resolve(const Dispatchable& d, const std::vector<BindPoint>& bindings, std::vector<vkdml::BufferBinding>& inputs,
               std::vector<vkdml::BufferBinding>& outputs, std::vector<const BindingSource*>& inputSources,
               std::vector<const BindingSource*>& outputSources) {
    for (const auto& point : bindPoints(d.desc)) {
      auto& list = point.output ? outputs : inputs;
      auto& sources = point.output ? outputSources : inputSources;
      auto find = [&](const std::vector<BindPoint>& from) -> const BindPoint* {
        for (const auto& b : from)
          if (b.name == point.name) return &b;
        return nullptr;
      };
      const BindPoint* bound = find(bindings);
      if (!bound) bound = find(d.initBindings);
      if (!bound) {
        list.insert(list.end(), point.resourceCount, vkdml::BufferBinding{});
        sources.insert(sources.end(), point.resourceCount, nullptr);
        continue;
      }
      for (const auto& source : bound->sources) {
        const Resource& r = resource(source.resource);
        // An elementOffset with no element size (a resource of no single
        // data type, no elementSizeInBytes) was refused by the parser.
        uint64_t elementSize =
            source.elementSizeInBytes ? source.elementSizeInBytes : vkdmlElementSizeInBytes(r.dataType);
        if (elementSize != 0 && source.elementOffset > r.sizeInBytes / elementSize)
          throw ModelError(source.where, "Failed to resolve bindings: elementOffset " +
                                             std::to_string(source.elementOffset) + " * " +
                                             std::to_string(elementSize) + " bytes lies past the end of resource '" +
                                             r.name + "' (" + std::to_string(r.sizeInBytes) + " bytes)");
        uint64_t offset = source.elementOffset * elementSize;
        list.push_back({&buffers_.at(r.name), offset, r.sizeInBytes - offset});
        sources.push_back(&source);
      }
    }
  }

  void runCommand(const DispatchCommand& c, const Location& where) {
    Prepared& p = prepared(c.dispatchable);
    std::vector<vkdml::BufferBinding> inputs, outputs;
    std::vector<const BindingSource*> inputSources, outputSources;
    resolve(*p.model, c.bindings, inputs, outputs, inputSources, outputSources);
    // DIAGONAL_MATRIX has no input; the DIAGONAL_MATRIX1 it becomes has an optional one, left unbound.
    if (inputs.size() < p.op.inputCount()) {
      inputs.resize(p.op.inputCount());
      inputSources.resize(p.op.inputCount(), nullptr);
    }
    if (!timer_) timer_ = std::make_unique<GpuTimer>(device_, options_.maxGpuTimeMeasurements);

    std::vector<double> cpu, gpu;
    uint64_t gpuOverwritten = 0;
    const uint32_t repeat = std::max<uint32_t>(options_.repeat, 1);
    const uint64_t iterations = options_.millisecondsToRun ? UINT32_MAX : options_.iterations;
    auto loopStart = Clock::now();
    uint64_t completed = 0;
    for (bool timedOut = false; !timedOut && completed < iterations; ++completed) {
      auto iterationStart = Clock::now();
      vkdml::BindingTable table;
      try {
        table = p.compiled.createBindingTable();
        table.bindInputs(inputs);
        table.bindOutputs(outputs);
        if (const uint64_t bytes = p.compiled.bindingProperties().persistentResourceSize) {
          const bool fresh = !p.persistent;
          if (fresh) p.persistent = device_.createBuffer(bytes);
          table.bindPersistent({&p.persistent, 0, bytes});
          if (fresh) device_.initialize(p.compiled, table);
        }
      } catch (const vkdml::Error& e) {
        throw bindingError(e, where, inputSources, outputSources);
      }
      auto dispatchStart = Clock::now();
      try {
        timer_->run([&](VkCommandBuffer cmd) {
          for (uint32_t r = 0; r < repeat; ++r) {
            p.compiled.record(cmd, table);
            if (options_.postDispatchBarrier) timer_->barrier(cmd);
          }
        });
      } catch (const vkdml::Error& e) {
        throw ModelError(where, std::string("Failed to execute dispatchable: ") + e.what());
      }
      cpu.push_back(millisecondsSince(dispatchStart) / repeat);
      if (auto ms = timer_->lastMilliseconds()) {
        gpu.push_back(*ms / repeat);
        if (gpu.size() > options_.maxGpuTimeMeasurements) {  // a ring of that many, as DxDispatch's
          gpu.erase(gpu.begin());
          ++gpuOverwritten;
        }
      }
      double sleep = std::max(0.0, options_.intervalMilliseconds - millisecondsSince(iterationStart));
      if (options_.millisecondsToRun && millisecondsSince(loopStart) + sleep > *options_.millisecondsToRun)
        timedOut = true;
      else if (sleep > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(sleep)));
    }
    report(c.dispatchable, completed, cpu, gpu, gpuOverwritten);
  }

  // vkdml's error about a binding ("inputs[2] (InputTensors[1]).SizeInBytes:
  // ..."), at the binding it names and naming its resource; other errors
  // (the persistent resource, the initializer) at the command.
  static ModelError bindingError(const vkdml::Error& e, const Location& command,
                                 const std::vector<const BindingSource*>& inputSources,
                                 const std::vector<const BindingSource*>& outputSources) {
    const std::string& field = e.field();
    const BindingSource* source = nullptr;
    for (auto [side, sources] :
         {std::pair<const char*, const std::vector<const BindingSource*>*>{"inputs[", &inputSources},
          {"outputs[", &outputSources}}) {
      if (field.rfind(side, 0) != 0) continue;
      size_t index = 0, at = std::strlen(side);
      for (; at < field.size() && field[at] >= '0' && field[at] <= '9' && index < sources->size(); ++at)
        index = index * 10 + static_cast<size_t>(field[at] - '0');
      if (at < field.size() && field[at] == ']' && at > std::strlen(side) && index < sources->size())
        source = (*sources)[index];
    }
    std::string message = std::string("ERROR while binding resources: ") + e.what();
    if (!source) return ModelError(command, message);
    message += " (resource '" + source->resource + "'";
    if (source->elementOffset) message += " from element " + std::to_string(source->elementOffset);
    return ModelError(source->where, message + ")");
  }

  void report(const std::string& name, uint64_t completed, const std::vector<double>& cpu,
              const std::vector<double>& gpu, uint64_t gpuOverwritten) {
    if (completed == 0) return;
    const size_t warmup = options_.warmupSamples;
    auto [cpuCold, cpuHot] = coldAndHot(cpu, warmup);
    auto [gpuCold, gpuHot] = coldAndHot(gpu, std::max<size_t>(warmup, gpuOverwritten) - gpuOverwritten);
    std::string head = "Dispatch '" + name + "': " + std::to_string(completed) + " iterations";
    if (options_.timingVerbosity == 0) {
      out_ << head << ", " << format("%.4f", cpuHot.median) << " ms median (CPU)";
      if (!gpu.empty()) out_ << ", " << format("%.6f", gpuHot.median) << " ms median (GPU)";
      out_ << std::endl;
    } else {
      out_ << head << std::endl;
      if (cpuCold.count) out_ << statsLine("CPU Timings (Cold)", cpuCold) << std::endl;
      if (gpuCold.count) out_ << statsLine("GPU Timings (Cold)", gpuCold) << std::endl;
      if (cpuHot.count) out_ << statsLine("CPU Timings (Hot) ", cpuHot) << std::endl;
      if (gpuHot.count) out_ << statsLine("GPU Timings (Hot) ", gpuHot) << std::endl;
      if (gpuOverwritten) out_ << "GPU samples buffer has " << gpuOverwritten << " samples overwritten." << std::endl;
    }
    if (options_.timingVerbosity >= 2) {
      out_ << "The timings of each iteration: " << std::endl;
      for (uint64_t i = 0; i < completed; ++i) {
        out_ << "iteration " << i << ": " << format("%.4f", cpu[i]) << " ms (CPU)";
        if (!gpu.empty() && i >= gpuOverwritten) out_ << ", " << format("%.4f", gpu[i - gpuOverwritten]) << " ms (GPU)";
        out_ << std::endl;
      }
    }
  }

  std::vector<uint8_t> download(const Resource& r) {
    std::vector<uint8_t> bytes(r.sizeInBytes);
    buffers_.at(r.name).download(bytes.data(), bytes.size());
    return bytes;
  }

  void runCommand(const PrintCommand& c, const Location& where) {
    const Resource& r = resource(c.resource);
    try {
      const uint32_t size = vkdmlElementSizeInBytes(r.dataType);
      // The initializer's elements, not the buffer's padding or extra size:
      // DxDispatch's print sets the view's sizeInBytes to the initial values'
      // size before its max(sizeInBytes, initial values) (the max counts
      // only for deferred resources, which have none and are refused here).
      std::string text = formatResource(r.name, r.dataType, download(r), size ? r.initialBytes / size : 0, c.verbose);
      out_ << text << std::endl;
    } catch (const std::exception& e) {
      throw ModelError(where, std::string("Failed to print resource: ") + e.what());
    }
  }

  // A failed write is an error at the command (DxDispatch prints it and goes on,
  // which made a run that wrote nothing succeed).
  void runCommand(const WriteFileCommand& c, const Location& where) {
    namespace fs = std::filesystem;
    const Resource& r = resource(c.resource);
    std::error_code ec;
    // As DxDispatch: absolute(outputPath / targetPath), outputPath the current folder by default.
    fs::path base = options_.outputPath.empty() ? fs::current_path(ec) : fs::path(options_.outputPath);
    fs::path target = fs::absolute(base / c.targetPath, ec);
    try {
      std::vector<uint8_t> bytes = download(r);
      std::string extension = target.extension().string();
      std::transform(extension.begin(), extension.end(), extension.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      if (extension == ".npy") {
        std::vector<uint64_t> shape(c.dimensions.begin(), c.dimensions.end());
        const uint32_t size = vkdmlElementSizeInBytes(r.dataType);
        if (shape.empty() && size) shape.push_back(r.sizeInBytes / size);
        bytes = writeNpy(r.dataType, shape, bytes);
      } else if (extension == ".png" || extension == ".jpg") {
        throw std::invalid_argument("image files are not supported by vkdml-dispatch");
      }
      writeFile(target, bytes);
      out_ << "Resource '" << r.name << "' written to '" << target.string() << "'" << std::endl;
    } catch (const std::exception& e) {
      throw ModelError(where, "Failed to write resource to file '" + target.string() + "': " + e.what());
    }
  }

  // Errors at the close too: the data may stay buffered until then (a full disk).
  static void writeFile(const std::filesystem::path& target, const std::vector<uint8_t>& bytes) {
    std::error_code ec;
    if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) throw std::runtime_error("cannot make its folder: " + ec.message());
    std::FILE* file = std::fopen(target.c_str(), "wb");
    if (!file) throw std::runtime_error(std::string("cannot open it: ") + std::strerror(errno));
    int error = 0;  // errno, or EIO where the library set none
    errno = 0;
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size()) error = errno ? errno : EIO;
    if (std::fclose(file) != 0 && !error) error = errno ? errno : EIO;
    if (error) throw std::runtime_error(std::string("cannot write it: ") + std::strerror(error));
  }

  vkdml::Device& device_;
  const Model& model_;
  const Options& options_;
  std::ostream& out_;
  std::unordered_map<std::string_view, const Resource*> resources_;
  std::map<std::string, vkdml::Buffer> buffers_;
  std::vector<Prepared> prepared_;
  std::unordered_map<std::string_view, Prepared*> preparedByName_;  // filled once prepared_ is complete
  std::unique_ptr<GpuTimer> timer_;
};

}  // namespace

void execute(vkdml::Device& device, const Model& model, const Options& options, std::ostream& out) {
  Executor(device, model, options, out).run();
}

}  // namespace dispatch
