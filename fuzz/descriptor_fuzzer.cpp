// libFuzzer target: arbitrary bytes -> an operator descriptor, compile
// options and binding calls (fuzz/decode.cpp); createOperator, compileOperator
// and bind must accept them or throw vkdml::Error, and what is accepted runs
// on the device with every binding placed in one buffer between guard
// regions. What executes is then run again in the binding model's other
// orders where the bytes say so (fuzz::Schedule: owned inputs overwritten
// after initialization, a command buffer of the fuzzer's rebound and
// submitted again, the initializer's order), each of which must give the
// same output. A finding prints "FINDING: ..." and aborts (fuzz/README.md).
//
// descriptor_fuzzer --write-seeds DIR writes the seed corpus (fuzz/corpus).

// volk first: it declares Vulkan's functions as pointers (vkdml.hpp includes vulkan_core.h).
#include <volk.h>

#include <vkdml/vkdml.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "decode.hpp"
#include "layout.hpp"

namespace {

using fuzz::BindingChoice;
using fuzz::Layout;
using fuzz::u128;

// What one execution may take, so that lavapipe runs it in milliseconds.
constexpr uint64_t kMaxTensorBytes = 1 << 20;
constexpr uint64_t kMaxBufferBytes = 4 << 20;
constexpr uint64_t kMaxElements = 1 << 18;
constexpr uint64_t kMaxConvolutionWork = 1 << 22;  // multiply-adds: M*N*K
constexpr uint64_t kGuard = 256;                   // bytes before and after each slot's region
constexpr uint64_t kRegionAlignment = 4096;
constexpr uint64_t kSlackRoom = 64;  // a binding may extend past its tensor (BindingChoice::slack)

// The device the cases run on. Its pipeline cache keeps one pipeline per
// kernel and specialization (the convolution's tile shapes alone make
// hundreds), each with lavapipe's compiled code: a fresh device every
// kRunsPerDevice runs bounds the process's memory (and checks that releasing
// one draws no validation message). A second device, never used nor
// released, keeps lavapipe and the layers loaded, so that LeakSanitizer can
// name their frames (tests/lsan.supp) at exit too.
std::shared_ptr<vkdml::Device>* gDevice = nullptr;
std::shared_ptr<vkdml::Device>* gKeepLoaded = nullptr;
constexpr uint64_t kRunsPerDevice = 50000;

// The running case, as far as it got: the operator, its tensors, the
// bindings; and the schedule running after its plain execution, if any (its
// name, which prefixes a finding's message, and what it does).
std::string gCase;
std::string gSchedule, gScheduleSteps;

[[noreturn]] void finding(const std::string& what) {
  const std::string prefix = gSchedule.empty() ? "" : gSchedule + " schedule: ";
  const std::string steps = gSchedule.empty() ? "" : "  schedule " + gSchedule + ": " + gScheduleSteps + "\n";
  std::fprintf(stderr, "FINDING: %s%s\n%s%s", prefix.c_str(), what.c_str(), gCase.c_str(), steps.c_str());
  std::fflush(stderr);
  std::abort();
}

// decode.cpp also draws values outside the enumeration, which compile must reject.
bool knownPath(vkdml::ConvolutionPath path) {
  return static_cast<uint32_t>(path) <= static_cast<uint32_t>(vkdml::ConvolutionPath::CooperativeMatrixEmulated);
}

template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}

// $VKDML_FUZZ_VERBOSE=1: print each error and each case's outcome (to see
// what an input does: ./dev.sh fuzz FILE).
const bool gVerbose = [] {
  const char* env = std::getenv("VKDML_FUZZ_VERBOSE");
  return env && std::strcmp(env, "1") == 0;
}();

// Every error names its operator and field, and its message names both.
void checkError(const vkdml::Error& e, const char* call) {
  const std::string what = e.what();
  if (gVerbose) std::fprintf(stderr, "  %s: %s\n", call, what.c_str());
  if (e.op().empty() || e.field().empty() || what.find(e.op()) == std::string::npos ||
      what.find(e.field()) == std::string::npos)
    finding(str(call, ": an error that does not name its operator and field: op '", e.op(), "', field '", e.field(),
                "', message '", what, "'"));
}

// The outcome of one case, counted for the summary and the seed corpus.
enum class Outcome { Rejected, NotCompiled, TooLarge, NotBound, NotExecuted, Executed, Count };
const char* const kOutcomeNames[] = {"rejected", "not-compiled", "too-large", "not-bound", "not-executed", "executed"};
uint64_t gOutcomes[static_cast<int>(Outcome::Count)] = {};

struct Splitmix {
  uint64_t state;
  uint64_t operator()() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

uint32_t operatorType(const DML_OPERATOR_DESC& desc) {  // the raw bits: the decoder stores any value
  uint32_t bits;
  std::memcpy(&bits, &desc.Type, sizeof bits);
  return bits;
}

uint64_t alignUp(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

// The schedules run after plain executions (fuzz::Schedule), counted for the summary.
enum class ScheduleKind { Owned, Rebind, InitializerOrder, Count };
const char* const kScheduleNames[] = {"owned-inputs", "rebind-and-resubmit", "initializer-order"};
uint64_t gSchedules[static_cast<int>(ScheduleKind::Count)] = {};

// The device's entry points for the fuzzer's own command buffers (volk):
// loaded for each device the fuzzer creates (createDevice drops them).
std::optional<VolkDeviceTable> gDeviceTable;

const VolkDeviceTable& deviceTable(vkdml::Device& device) {
  if (!gDeviceTable) {
    static const VkResult loaded = volkInitialize();
    if (loaded != VK_SUCCESS) finding("volkInitialize failed");
    // vkdml's devices call only their own tables: volk's instance-level
    // globals are free to point at this one's instance.
    volkLoadInstanceOnly(device.instance());
    gDeviceTable.emplace();
    volkLoadDeviceTable(&*gDeviceTable, device.device());
  }
  return *gDeviceTable;
}

// One primary command buffer of the device, from a pool of its own, that the
// fuzzer records and submits as a caller of CompiledOperator::record does
// (tests/recorded.cpp). Discarded unsubmitted, or submitted again, as the
// schedule says.
class Commands {
 public:
  explicit Commands(vkdml::Device& device) : device_(device), vk_(deviceTable(device)) {
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.queueFamilyIndex = device.queueFamilyIndex();
    if (vk_.vkCreateCommandPool(device.device(), &poolInfo, nullptr, &pool_) != VK_SUCCESS)
      finding("vkCreateCommandPool failed");
    VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    allocate.commandPool = pool_;
    allocate.commandBufferCount = 1;
    if (vk_.vkAllocateCommandBuffers(device.device(), &allocate, &cmd_) != VK_SUCCESS)
      finding("vkAllocateCommandBuffers failed");
  }
  ~Commands() { vk_.vkDestroyCommandPool(device_.device(), pool_, nullptr); }
  Commands(const Commands&) = delete;
  Commands& operator=(const Commands&) = delete;

  // Records `record` between begin and end: after a barrier that orders it
  // after earlier copies into the buffers, before one that makes its writes
  // visible to the host and to transfers. What `record` throws passes
  // through (the command buffer ended first).
  void record(const std::function<void(VkCommandBuffer)>& record) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (vk_.vkBeginCommandBuffer(cmd_, &begin) != VK_SUCCESS) finding("vkBeginCommandBuffer failed");
    barrier(VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT |
                VK_ACCESS_SHADER_WRITE_BIT);
    try {
      record(cmd_);
    } catch (...) {
      vk_.vkEndCommandBuffer(cmd_);
      throw;
    }
    barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
    if (vk_.vkEndCommandBuffer(cmd_) != VK_SUCCESS) finding("vkEndCommandBuffer failed");
  }

  // Submits what was recorded (again, if it was before) and waits for it.
  void submitAndWait() {
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    if (vk_.vkCreateFence(device_.device(), &fenceInfo, nullptr, &fence) != VK_SUCCESS) finding("vkCreateFence failed");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd_;
    VkResult result;
    {
      auto lock = device_.lockQueue();
      result = vk_.vkQueueSubmit(device_.queue(), 1, &submit, fence);
    }
    if (result == VK_SUCCESS) result = vk_.vkWaitForFences(device_.device(), 1, &fence, VK_TRUE, UINT64_MAX);
    vk_.vkDestroyFence(device_.device(), fence, nullptr);
    if (result != VK_SUCCESS) finding(str("the fuzzer's command buffer failed: VkResult ", static_cast<int>(result)));
  }

 private:
  void barrier(VkPipelineStageFlags srcStages, VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
               VkAccessFlags dstAccess) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    vk_.vkCmdPipelineBarrier(cmd_, srcStages, dstStages, 0, 1, &b, 0, nullptr, 0, nullptr);
  }

  vkdml::Device& device_;
  const VolkDeviceTable& vk_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

// A call that the plain schedule's bindings make valid: it must be accepted.
template <typename F>
void mustAccept(const std::string& call, F&& f) {
  try {
    f();
  } catch (const vkdml::Error& e) {
    finding(str(call, " refused what the plain schedule ran: ", e.what()));
  }
}

// A call that must be refused, with InvalidArgument, naming its operator and field.
template <typename F>
void mustRefuse(const std::string& call, F&& f) {
  try {
    f();
  } catch (const vkdml::Error& e) {
    checkError(e, call.c_str());
    if (e.code() != vkdml::ErrorCode::InvalidArgument)
      finding(str(call, " refused with code ", static_cast<int>(e.code()), ", not InvalidArgument: ", e.what()));
    return;
  }
  finding(str(call, " accepted"));
}

std::string hexBytes(const uint8_t* p, uint32_t n) {
  std::string text = "0x";
  for (uint32_t i = n; i-- > 0;) {  // little-endian: the most significant byte first
    char digits[3];
    std::snprintf(digits, sizeof digits, "%02x", p[i]);
    text += digits;
  }
  return text;
}

// One case's run: the operator, its slots' layouts, the buffer holding every
// binding's region, and what the binding table holds (as far as the calls
// that vkdml accepted say).
class Run {
 public:
  explicit Run(const fuzz::Case& c) : c_(c) {}
  Outcome go();

 private:
  const fuzz::Case& c_;
  vkdml::Device& device_ = **gDevice;
  std::vector<std::optional<Layout>> layouts_;  // per slot: the inputs, then the output
  std::vector<uint64_t> regions_;               // per slot: its region's offset in buffer_
  uint64_t bufferBytes_ = 0;
  vkdml::Buffer buffer_;
  std::vector<uint8_t> before_;
  std::optional<std::vector<vkdml::BufferBinding>> boundInputs_, boundOutputs_;
  vkdml::Buffer temporary_;
  bool boundTemporary_ = false;  // temporary_ bound (else the table's own)
  vkdml::CompiledOperator compiled_;
  vkdml::BindingProperties properties_;
  // After the plain execution: the buffer's bytes, and per output element
  // (row-major) whether two of DML_SCATTER_ND's index tuples name it (one of
  // the writers wins, which is unspecified: not compared).
  std::vector<uint8_t> plainAfter_;
  std::vector<uint8_t> ambiguous_;

  size_t slots() const { return layouts_.size(); }
  size_t outputSlot() const { return layouts_.size() - 1; }
  std::string slotName(size_t slot) const { return slot == outputSlot() ? std::string("output") : str("input ", slot); }
  std::string describe() const;
  void checkAccepted(const vkdml::Operator& op) const;
  bool fitsTable() const;
  bool fitsExecution() const;
  uint64_t regionBytes(size_t slot) const;
  void placeBindings();
  void fillIndices(size_t slot, uint64_t seed);
  vkdml::BufferBinding resolve(const BindingChoice& choice, size_t slot) const;
  void bind(vkdml::BindingTable& table, const fuzz::BindCall& call);
  void checkBinding(const vkdml::BufferBinding& b, size_t slot, const char* call) const;
  bool inPlace() const;
  bool anyOwned() const;
  void bindTemporary(vkdml::BindingTable& table, uint64_t bytes);
  std::optional<size_t> inputUnderOutput() const;
  std::vector<uint8_t> checkExecution(const std::vector<uint8_t>& before);
  // The schedules (fuzz::Schedule).
  bool owned(size_t slot) const;
  void restore();
  vkdml::Buffer resourceBuffer(uint64_t bytes);
  vkdml::BufferBinding resource(const vkdml::Buffer& buffer, uint64_t bytes) const { return {&buffer, 256, bytes}; }
  void findAmbiguousTargets();
  void compareWithPlain(const std::vector<uint8_t>& after, uint64_t shift, const char* what) const;
  void bindPlain(vkdml::BindingTable& table, const std::vector<vkdml::BufferBinding>& inputs);
  void runSchedules(std::vector<uint8_t> plainAfter);
  void ownedSchedule();
  void rebindSchedule();
  void initializerOrderSchedule();
};

void Run::checkAccepted(const vkdml::Operator& op) const {
  if (op.inputCount() != c_.inputs.size() || op.outputCount() != 1)
    finding(str("the operator has ", op.inputCount(), " inputs and ", op.outputCount(), " outputs; its descriptor ",
                c_.inputs.size(), " and 1"));
  for (size_t slot = 0; slot < slots(); ++slot) {
    const DML_TENSOR_DESC* desc = slot == outputSlot() ? c_.output : c_.inputs[slot];
    if (!desc) continue;  // an optional tensor left out
    if (!layouts_[slot]) finding(str("accepted ", slotName(slot), ", whose descriptor is not a readable tensor"));
    const Layout& t = *layouts_[slot];
    if (t.footprintBytes > t.totalBytes)
      finding(str("accepted ", slotName(slot), " with TotalTensorSizeInBytes ", t.totalBytes,
                  " while its elements span ", fuzz::decimal(t.footprintBytes), " bytes"));
    if (t.elementCount > 0xFFFFFFFFu)
      finding(
          str("accepted ", slotName(slot), " with ", fuzz::decimal(t.elementCount), " elements (at most 2^32 - 1)"));
  }
}

// Small enough for a binding table (ScatterND's scratch has a bit per target).
bool Run::fitsTable() const {
  return std::all_of(layouts_.begin(), layouts_.end(),
                     [](const std::optional<Layout>& t) { return !t || t->elementCount <= kMaxElements; });
}

// Small enough to execute in milliseconds.
bool Run::fitsExecution() const {
  uint64_t bytes = 0;
  for (const auto& t : layouts_) {
    if (!t) continue;
    if (t->totalBytes > kMaxTensorBytes) return false;
    bytes += t->totalBytes;
  }
  if (bytes > kMaxBufferBytes) return false;
  if (operatorType(c_.desc) == DML_OPERATOR_CONVOLUTION_INTEGER) {
    // M*N*K = output elements * (filter elements / output channels).
    const Layout &filter = *layouts_[2], &out = *layouts_[outputSlot()];
    if (out.elementCount * (filter.elementCount / filter.sizes[0]) > kMaxConvolutionWork) return false;
  }
  return true;
}

// TotalTensorSizeInBytes where it is small; none (so that any binding of the
// tensor fails) where not.
uint64_t Run::regionBytes(size_t slot) const {
  return layouts_[slot] && layouts_[slot]->totalBytes <= kMaxTensorBytes ? layouts_[slot]->totalBytes : 0;
}

// Each present slot gets a region (plus room for slack) between guards; the
// buffer starts as random bytes, indices aside.
void Run::placeBindings() {
  uint64_t cursor = 0;
  regions_.assign(slots(), 0);
  for (size_t slot = 0; slot < slots(); ++slot) {
    regions_[slot] = alignUp(cursor + kGuard, kRegionAlignment);
    cursor = regions_[slot] + regionBytes(slot) + kSlackRoom;
  }
  bufferBytes_ = cursor + kGuard;
  before_.resize(bufferBytes_);
  Splitmix rng{c_.dataSeed};
  for (size_t i = 0; i < bufferBytes_; i += 8) {
    const uint64_t word = rng();
    std::memcpy(before_.data() + i, &word, std::min<size_t>(8, bufferBytes_ - i));
  }
  const int indices = c_.indicesInput;
  if (indices >= 0 && layouts_[indices] && regionBytes(indices) > 0) fillIndices(static_cast<size_t>(indices), rng());
  buffer_ = device_.createBuffer(bufferBytes_);
  buffer_.upload(before_.data(), bufferBytes_);
}

// DML_SCATTER_ND's indices: in range, negative in range (signed types) or
// raw bits (which vkdml clamps).
void Run::fillIndices(size_t slot, uint64_t seed) {
  const uint8_t mode = c_.indexMode;
  if (mode >= 192) return;
  const auto& d = *static_cast<const DML_SCATTER_ND_OPERATOR_DESC*>(c_.desc.Desc);
  const Layout &indices = *layouts_[slot], &out = *layouts_[outputSlot()];
  const uint32_t rank = indices.rank, k = indices.sizes[rank - 1];
  const bool isSigned =
      indices.dataType == DML_TENSOR_DATA_TYPE_INT32 || indices.dataType == DML_TENSOR_DATA_TYPE_INT64;
  Splitmix rng{seed};
  uint64_t n = 0;
  indices.forEachElement([&](uint64_t at) {
    const uint32_t component = static_cast<uint32_t>(n++ % k);
    const uint64_t size = out.sizes[rank - d.InputDimensionCount + component];
    int64_t value = static_cast<int64_t>(rng() % size);
    if (mode >= 128 && isSigned) value -= static_cast<int64_t>(size);
    std::memcpy(before_.data() + regions_[slot] + at, &value, indices.elementSize);  // little-endian
  });
}

vkdml::BufferBinding Run::resolve(const BindingChoice& choice, size_t slot) const {
  if (slot >= slots() || !layouts_[slot]) {  // an extra binding, or a slot left out
    if (choice.kind == BindingChoice::Own || choice.kind == BindingChoice::Nothing) return {};
    return {&buffer_, 0, 16};
  }
  const Layout& t = *layouts_[slot];
  const uint64_t offset = regions_[slot], size = t.totalBytes + choice.slack;
  switch (choice.kind) {
    case BindingChoice::Own:
      return {&buffer_, offset, size};
    case BindingChoice::Misaligned:
      return {&buffer_, offset + 1 + choice.delta % std::max<uint32_t>(t.alignment - 1, 1), size};
    case BindingChoice::TooSmall:
      return {&buffer_, offset, t.totalBytes - std::min<uint64_t>(t.totalBytes, 1 + choice.delta % 8)};
    case BindingChoice::OutOfRange:
      switch (choice.delta % 4) {
        case 0:
          return {&buffer_, bufferBytes_ - alignUp(t.totalBytes, 16) + 16, size};
        case 1:
          return {&buffer_, offset, UINT64_MAX};
        case 2:
          return {&buffer_, UINT64_MAX & ~uint64_t(4095), size};
        default:
          return {&buffer_, bufferBytes_, size};
      }
    case BindingChoice::Alias: {
      size_t other = choice.other % slots();
      if (!layouts_[other]) other = slot;
      return {&buffer_, regions_[other] + choice.delta, size};
    }
    case BindingChoice::Nothing:
      return {};
  }
  return {};
}

// An accepted binding obeys the rules: bound where the tensor is present,
// aligned, covering TotalTensorSizeInBytes, inside its buffer.
void Run::checkBinding(const vkdml::BufferBinding& b, size_t slot, const char* call) const {
  const std::optional<Layout>& t = layouts_[slot];
  const std::string where = str(call, " accepted ", slotName(slot), " bound to [", b.offset, ", +", b.sizeInBytes, ")");
  if (!t) {
    if (b.buffer) finding(where + " while its descriptor leaves it out");
    return;
  }
  if (!b.buffer) {
    // With inputs owned by DML, bindInputs takes nothing for any input:
    // record() and the initializer check what each needs.
    if (!anyOwned()) finding(where + ": no buffer");
    return;
  }
  if (b.offset % t->alignment) finding(str(where, ": offset not a multiple of ", t->alignment));
  if (b.sizeInBytes < t->totalBytes) finding(str(where, ": below TotalTensorSizeInBytes ", t->totalBytes));
  if (b.offset > bufferBytes_ || b.sizeInBytes > bufferBytes_ - b.offset)
    finding(str(where, ": past the buffer's ", bufferBytes_, " bytes"));
}

void Run::bind(vkdml::BindingTable& table, const fuzz::BindCall& call) {
  const size_t first = call.outputs ? outputSlot() : 0;
  std::vector<vkdml::BufferBinding> bindings;
  for (size_t i = 0; i < call.bindings.size(); ++i) {
    const size_t slot = first + i;
    const bool inGroup = call.outputs ? slot == outputSlot() : slot < outputSlot();
    bindings.push_back(resolve(call.bindings[i], inGroup ? slot : slots()));
  }
  const char* name = call.outputs ? "bindOutputs" : "bindInputs";
  try {
    if (call.outputs)
      table.bindOutputs(bindings);
    else
      table.bindInputs(bindings);
  } catch (const vkdml::Error& e) {
    checkError(e, name);
    return;  // the table keeps what it held
  }
  const size_t expected = call.outputs ? 1 : outputSlot();
  if (bindings.size() != expected)
    finding(str(name, " accepted ", bindings.size(), " bindings for ", expected, " slots"));
  for (size_t i = 0; i < bindings.size(); ++i) checkBinding(bindings[i], first + i, name);
  (call.outputs ? boundOutputs_ : boundInputs_) = bindings;
}

// An input flagged DML_TENSOR_FLAG_OWNED_BY_DML (the descriptor was accepted, so readable).
bool Run::anyOwned() const {
  for (size_t slot = 0; slot < c_.inputs.size(); ++slot)
    if (owned(slot)) return true;
  return false;
}

bool Run::owned(size_t slot) const {
  const DML_TENSOR_DESC* d = slot < c_.inputs.size() ? c_.inputs[slot] : nullptr;
  return d && (static_cast<const DML_BUFFER_TENSOR_DESC*>(d->Desc)->Flags & DML_TENSOR_FLAG_OWNED_BY_DML);
}

// A temporary resource of the caller's, full of garbage, in a buffer of its
// own: a misaligned offset is refused, an aligned one accepted.
void Run::bindTemporary(vkdml::BindingTable& table, uint64_t bytes) {
  temporary_ = resourceBuffer(bytes);
  try {
    table.bindTemporary({&temporary_, 16, bytes});
    finding(str("bindTemporary accepted offset 16 (not a multiple of ", DML_TEMPORARY_BUFFER_ALIGNMENT, ")"));
  } catch (const vkdml::Error& e) {
    checkError(e, "bindTemporary");
  }
  table.bindTemporary(resource(temporary_, bytes));
  boundTemporary_ = true;
}

// A temporary or persistent resource of the fuzzer's, full of garbage,
// bound at offset 256 (resource()).
vkdml::Buffer Run::resourceBuffer(uint64_t bytes) {
  vkdml::Buffer b = device_.createBuffer(bytes + 256);
  b.fill(0xFFFFFFFFu, (bytes + 256) & ~uint64_t(3));
  return b;
}

// DML_SCATTER_ND in place: the output bound exactly over InputTensor, with
// the same layout (include/vkdml/vkdml.hpp).
bool Run::inPlace() const {
  if (operatorType(c_.desc) != DML_OPERATOR_SCATTER_ND) return false;
  const vkdml::BufferBinding &in = (*boundInputs_)[0], &out = (*boundOutputs_)[0];
  return in.offset == out.offset && layouts_[0]->sameLayout(*layouts_[outputSlot()]);
}

// An input whose elements' range the output's range overlaps (DML_SCATTER_ND
// exactly in place aside).
std::optional<size_t> Run::inputUnderOutput() const {
  const uint64_t out = (*boundOutputs_)[0].offset;
  const u128 outBytes = layouts_[outputSlot()]->footprintBytes;
  for (size_t slot = 0; slot < outputSlot(); ++slot) {
    if (!layouts_[slot] || (slot == 0 && inPlace())) continue;
    const uint64_t in = (*boundInputs_)[slot].offset;
    if (in < out + outBytes && out < in + layouts_[slot]->footprintBytes) return slot;
  }
  return std::nullopt;
}

// Checks the buffer after an execution that started from `before`; returns
// its bytes.
std::vector<uint8_t> Run::checkExecution(const std::vector<uint8_t>& before) {
  std::vector<uint8_t> after(bufferBytes_);
  buffer_.download(after.data(), bufferBytes_);
  const Layout& out = *layouts_[outputSlot()];
  const uint64_t outOffset = (*boundOutputs_)[0].offset;
  const bool exempt = inPlace();

  // The bytes the output's elements occupy: all that may change.
  std::vector<uint8_t> written(bufferBytes_, 0);
  out.forEachElement([&](uint64_t at) {
    for (uint32_t b = 0; b < out.elementSize; ++b) {
      if (written[outOffset + at + b]) finding(str("accepted an output whose elements overlap (byte ", at + b, ")"));
      written[outOffset + at + b] = 1;
    }
  });
  if (const std::optional<size_t> slot = inputUnderOutput())
    finding(str("executed with the output's range [", outOffset, ", +", fuzz::decimal(out.footprintBytes),
                ") overlapping ", slotName(*slot), "'s [", (*boundInputs_)[*slot].offset, ", +",
                fuzz::decimal(layouts_[*slot]->footprintBytes), ")"));
  for (size_t slot = 0; slot < outputSlot(); ++slot) {
    if (!layouts_[slot] || (slot == 0 && exempt)) continue;
    const uint64_t in = (*boundInputs_)[slot].offset;
    layouts_[slot]->forEachElement([&](uint64_t at) {
      if (std::memcmp(&after[in + at], &before[in + at], layouts_[slot]->elementSize) != 0)
        finding(str(slotName(slot), "'s element at byte ", at, " changed"));
    });
  }
  for (uint64_t i = 0; i < bufferBytes_; ++i) {
    if (written[i] || after[i] == before[i]) continue;
    std::string where = "outside every region (a guard)";
    for (size_t slot = 0; slot < slots(); ++slot)
      if (layouts_[slot] && i >= regions_[slot] && i < regions_[slot] + regionBytes(slot) + kSlackRoom)
        where = str("in ", slotName(slot), "'s region at +", i - regions_[slot]);
    finding(str("byte ", i, " of the buffer changed (", int(before[i]), " -> ", int(after[i]), ") ", where,
                ", not an output element (output bound at ", outOffset, ")"));
  }
  return after;
}

// --- The schedules (fuzz::Schedule): the case again in the binding model's
// other orders, each compared with the plain execution's output.

// The buffer as the plain execution found it.
void Run::restore() {
  buffer_.upload(before_.data(), bufferBytes_);
}

// DML_SCATTER_ND's targets that two index tuples name (as scatter_nd.comp
// resolves them: a negative coordinate of a signed type counts from the end,
// then each is clamped into its dimension): their elements are left out of
// the comparisons, as the winner is unspecified.
void Run::findAmbiguousTargets() {
  ambiguous_.clear();
  if (operatorType(c_.desc) != DML_OPERATOR_SCATTER_ND) return;
  const auto& d = *static_cast<const DML_SCATTER_ND_OPERATOR_DESC*>(c_.desc.Desc);
  const Layout &indices = *layouts_[1], &out = *layouts_[outputSlot()];
  const uint64_t elements = static_cast<uint64_t>(out.elementCount);
  if (elements == 0) return;
  const uint32_t rank = out.rank;
  const uint32_t k = indices.rank ? indices.sizes[indices.rank - 1] : 0;
  if (indices.rank != rank || d.InputDimensionCount > rank || k == 0 || k > d.InputDimensionCount) {
    ambiguous_.assign(elements, 1);  // not a layout vkdml accepts: compare nothing rather than guess
    return;
  }
  const uint32_t first = rank - d.InputDimensionCount;
  uint64_t targets = 1;
  for (uint32_t i = 0; i < k; ++i) targets *= out.sizes[first + i];  // at most the output's elements
  std::vector<uint8_t> hits(targets);
  const bool isSigned =
      indices.dataType == DML_TENSOR_DATA_TYPE_INT32 || indices.dataType == DML_TENSOR_DATA_TYPE_INT64;
  const uint64_t base = (*boundInputs_)[1].offset;
  uint64_t target = 0;
  uint32_t component = 0;
  indices.forEachElement([&](uint64_t at) {
    uint64_t bits = 0;
    std::memcpy(&bits, &before_[base + at], indices.elementSize);  // little-endian
    const uint64_t size = out.sizes[first + component];
    const int64_t value = indices.elementSize == 4 ? static_cast<int32_t>(bits) : static_cast<int64_t>(bits);
    uint64_t c;
    if (isSigned && value < 0) {
      const uint64_t back = 0 - static_cast<uint64_t>(value);
      c = back > size ? 0 : size - back;
    } else {
      c = std::min(bits, size - 1);
    }
    target = target * size + c;
    if (++component == k) {
      if (hits[target] < 2) ++hits[target];
      target = 0;
      component = 0;
    }
  });
  ambiguous_.assign(elements, 0);
  std::array<uint32_t, DML_TENSOR_DIMENSION_COUNT_MAX1> coordinate{};
  for (uint64_t n = 0; n < elements; ++n) {
    uint64_t t = 0;
    for (uint32_t i = 0; i < k; ++i) t = t * out.sizes[first + i] + coordinate[first + i];
    ambiguous_[n] = hits[t] > 1;
    for (uint32_t dim = rank; dim-- > 0;) {
      if (++coordinate[dim] < out.sizes[dim]) break;
      coordinate[dim] = 0;
    }
  }
}

// The output's elements in `after` (the output bound `shift` bytes further)
// equal the plain execution's.
void Run::compareWithPlain(const std::vector<uint8_t>& after, uint64_t shift, const char* what) const {
  const Layout& out = *layouts_[outputSlot()];
  const uint64_t base = (*boundOutputs_)[0].offset;
  uint64_t n = 0;
  out.forEachElement([&](uint64_t at) {
    const uint64_t element = n++;
    if (!ambiguous_.empty() && ambiguous_[element]) return;
    const uint8_t* got = &after[shift + base + at];
    const uint8_t* want = &plainAfter_[base + at];
    if (std::memcmp(got, want, out.elementSize) != 0)
      finding(str(what, ": output element ", element, " (byte ", at, ") is ", hexBytes(got, out.elementSize),
                  ", the plain schedule's ", hexBytes(want, out.elementSize)));
  });
}

// The plain schedule's bindings (with `inputs` for the inputs) and its temporary resource.
void Run::bindPlain(vkdml::BindingTable& table, const std::vector<vkdml::BufferBinding>& inputs) {
  mustAccept("bindInputs", [&] { table.bindInputs(inputs); });
  mustAccept("bindOutputs", [&] { table.bindOutputs(*boundOutputs_); });
  if (boundTemporary_)
    mustAccept("bindTemporary", [&] { table.bindTemporary(resource(temporary_, properties_.temporaryResourceSize)); });
}

// Names the schedule that runs now (for its findings), counts it.
void startSchedule(ScheduleKind kind, const std::string& steps) {
  gSchedule = kScheduleNames[static_cast<int>(kind)];
  gScheduleSteps = steps;
  ++gSchedules[static_cast<int>(kind)];
  if (gVerbose) std::fprintf(stderr, "  schedule %s: %s\n", gSchedule.c_str(), steps.c_str());
}

void Run::runSchedules(std::vector<uint8_t> plainAfter) {
  const fuzz::Schedule& s = c_.schedule;
  const bool owned = s.owned && anyOwned();
  const bool initializerOrder = s.initializerOrder && properties_.persistentResourceSize;
  if (!owned && !s.rebind && !initializerOrder) return;
  plainAfter_ = std::move(plainAfter);
  findAmbiguousTargets();
  if (owned) ownedSchedule();
  if (s.rebind) rebindSchedule();
  if (initializerOrder) initializerOrderSchedule();
  gSchedule.clear();
}

// Owned inputs: initialized with a table that binds them alone (and a
// persistent resource, the table's own or the fuzzer's), then overwritten
// with garbage, then executed with them bound to nothing or still bound (to
// the garbage): executions read the initialized copies.
void Run::ownedSchedule() {
  const fuzz::Schedule& s = c_.schedule;
  const bool boundPersistent = s.ownedBoundPersistent && properties_.persistentResourceSize;
  const bool secondTable = boundPersistent && s.ownedSecondTable;
  startSchedule(ScheduleKind::Owned,
                str("initialized with the owned inputs alone bound and ",
                    boundPersistent ? "a persistent resource of the fuzzer's" : "the table's own persistent resource",
                    ", the owned inputs overwritten, executed", secondTable ? " through a second table" : "",
                    " with them ", s.ownedStayBound ? "still bound" : "bound to nothing",
                    s.ownedRecorded ? ", recorded into the fuzzer's command buffer" : " by Device::execute"));
  restore();
  vkdml::BindingTable init = compiled_.createBindingTable();
  std::vector<vkdml::BufferBinding> ownedOnly(outputSlot()), inputs = *boundInputs_;
  for (size_t slot = 0; slot < outputSlot(); ++slot)
    if (owned(slot)) {
      ownedOnly[slot] = (*boundInputs_)[slot];
      if (!s.ownedStayBound) inputs[slot] = {};
    }
  mustAccept("bindInputs (the owned inputs alone)", [&] { init.bindInputs(ownedOnly); });
  vkdml::Buffer persistent;
  if (boundPersistent) {
    persistent = resourceBuffer(properties_.persistentResourceSize);
    mustAccept("bindPersistent",
               [&] { init.bindPersistent(resource(persistent, properties_.persistentResourceSize)); });
  }
  mustAccept("Device::initialize", [&] { device_.initialize(compiled_, init); });

  // Garbage over the owned inputs' ranges, but where another input's elements lie.
  std::vector<uint8_t> state = before_, otherInput(bufferBytes_, 0);
  for (size_t slot = 0; slot < outputSlot(); ++slot) {
    if (!layouts_[slot] || owned(slot)) continue;
    const uint64_t at = (*boundInputs_)[slot].offset;
    const uint64_t end = std::min<uint64_t>(bufferBytes_, at + static_cast<uint64_t>(layouts_[slot]->footprintBytes));
    std::fill(otherInput.begin() + static_cast<long>(at), otherInput.begin() + static_cast<long>(end), 1);
  }
  for (size_t slot = 0; slot < outputSlot(); ++slot) {
    if (!layouts_[slot] || !owned(slot)) continue;
    const uint64_t at = (*boundInputs_)[slot].offset;
    for (uint64_t i = at; i < at + layouts_[slot]->totalBytes; ++i)
      if (!otherInput[i]) state[i] = static_cast<uint8_t>(~state[i]);
  }
  buffer_.upload(state.data(), bufferBytes_);

  vkdml::BindingTable table = secondTable ? compiled_.createBindingTable() : init;
  if (secondTable)
    mustAccept("bindPersistent (the second table)",
               [&] { table.bindPersistent(resource(persistent, properties_.persistentResourceSize)); });
  bindPlain(table, inputs);
  if (s.ownedRecorded) {
    Commands commands(device_);
    mustAccept("record", [&] { commands.record([&](VkCommandBuffer cmd) { compiled_.record(cmd, table); }); });
    commands.submitAndWait();
  } else {
    mustAccept("Device::execute", [&] { device_.execute(compiled_, table); });
  }
  compareWithPlain(checkExecution(state), 0, "after the owned inputs were overwritten");
}

// Rebind-and-resubmit: recorded into the fuzzer's command buffer with every
// slot bound to a decoy (another buffer holding the same bytes, further on),
// submitted; then every slot rebound to the real buffer, the decoys dropped,
// the same command buffer submitted again.
void Run::rebindSchedule() {
  const fuzz::Schedule& s = c_.schedule;
  uint64_t alignment = DML_PERSISTENT_BUFFER_ALIGNMENT;  // and the temporary resource's; powers of two
  for (const auto& t : layouts_)
    if (t) alignment = std::max<uint64_t>(alignment, t->alignment);
  if (alignment > kRegionAlignment) return;  // no binding of such a tensor was accepted
  const uint64_t shift = alignment * s.decoyShift;
  const int persistentMode = properties_.persistentResourceSize ? s.rebindPersistent : -1;
  const char* const persistentModes[] = {
      ", the table's own persistent resource initialized with the decoys bound",
      ", the table's own persistent resource, its initializer recorded before the execution",
      ", a persistent resource of the fuzzer's initialized from the decoys, then one from the real inputs"};
  startSchedule(ScheduleKind::Rebind, str("recorded with every slot bound to a decoy buffer ", shift,
                                          " bytes further, submitted, rebound to the real buffer, the decoy ",
                                          s.decoyKept ? "kept (refilled with garbage)" : "dropped", ", submitted again",
                                          persistentMode >= 0 ? persistentModes[persistentMode] : ""));
  restore();
  const uint64_t decoyBytes = alignUp(shift + bufferBytes_, 4);
  vkdml::Buffer decoy = device_.createBuffer(decoyBytes);
  {
    std::vector<uint8_t> bytes(decoyBytes, 0xC3);
    std::copy(before_.begin(), before_.end(), bytes.begin() + static_cast<long>(shift));
    decoy.upload(bytes.data(), bytes.size());
  }
  auto decoys = [&](std::vector<vkdml::BufferBinding> list) {
    for (auto& b : list)
      if (b.buffer) b = {&decoy, b.offset + shift, b.sizeInBytes};
    return list;
  };
  vkdml::BindingTable table = compiled_.createBindingTable();
  mustAccept("bindInputs (decoys)", [&] { table.bindInputs(decoys(*boundInputs_)); });
  mustAccept("bindOutputs (decoy)", [&] { table.bindOutputs(decoys(*boundOutputs_)); });
  vkdml::Buffer decoyTemporary, decoyPersistent, persistent;
  if (boundTemporary_) {
    decoyTemporary = resourceBuffer(properties_.temporaryResourceSize);
    mustAccept("bindTemporary (decoy)",
               [&] { table.bindTemporary(resource(decoyTemporary, properties_.temporaryResourceSize)); });
  }
  if (persistentMode == 2) {
    decoyPersistent = resourceBuffer(properties_.persistentResourceSize);
    mustAccept("bindPersistent (decoy)",
               [&] { table.bindPersistent(resource(decoyPersistent, properties_.persistentResourceSize)); });
    // The one rebound to, initialized from the real inputs through a table of its own.
    persistent = resourceBuffer(properties_.persistentResourceSize);
    vkdml::BindingTable init = compiled_.createBindingTable();
    mustAccept("bindInputs (the real inputs, to initialize)", [&] { init.bindInputs(*boundInputs_); });
    mustAccept("bindPersistent",
               [&] { init.bindPersistent(resource(persistent, properties_.persistentResourceSize)); });
    mustAccept("Device::initialize (the real inputs)", [&] { device_.initialize(compiled_, init); });
  }
  if (persistentMode == 0 || persistentMode == 2)
    mustAccept("Device::initialize (decoys)", [&] { device_.initialize(compiled_, table); });

  Commands commands(device_);
  mustAccept("record", [&] {
    commands.record([&](VkCommandBuffer cmd) {
      if (persistentMode == 1) compiled_.recordInitializer(cmd, table);
      compiled_.record(cmd, table);
    });
  });
  commands.submitAndWait();
  {
    std::vector<uint8_t> decoyAfter(decoyBytes);
    decoy.download(decoyAfter.data(), decoyAfter.size());
    compareWithPlain(decoyAfter, shift, "the first submission, into the decoy");
  }
  mustAccept("bindInputs (rebound)", [&] { table.bindInputs(*boundInputs_); });
  mustAccept("bindOutputs (rebound)", [&] { table.bindOutputs(*boundOutputs_); });
  if (boundTemporary_)
    mustAccept("bindTemporary (rebound)",
               [&] { table.bindTemporary(resource(temporary_, properties_.temporaryResourceSize)); });
  if (persistentMode == 2)
    mustAccept("bindPersistent (rebound)",
               [&] { table.bindPersistent(resource(persistent, properties_.persistentResourceSize)); });
  if (s.decoyKept) {
    decoy.fill(0x5A5A5A5Au, decoyBytes);
  } else {
    // The table held the decoys' last references (a command buffer holds none).
    decoy = {};
    decoyTemporary = {};
    decoyPersistent = {};
  }
  commands.submitAndWait();
  if (s.decoyKept) {
    std::vector<uint8_t> decoyAfter(decoyBytes);
    decoy.download(decoyAfter.data(), decoyBytes);
    for (uint64_t i = 0; i < decoyBytes; ++i)
      if (decoyAfter[i] != 0x5A)
        finding(str("the second submission, rebound, wrote byte ", i, " of the decoy buffer (the real buffer's byte ",
                    static_cast<int64_t>(i - shift), "): it followed a stale binding"));
  }
  compareWithPlain(checkExecution(before_), 0, "the second submission, rebound");
}

// The initializer's order (the table's own persistent resource): recorded
// into a command buffer never submitted, it initializes nothing, so
// executions are refused (by Device::execute, and by record into another
// command buffer), also once that command buffer is freed; recorded before
// the execution in one command buffer, it does, and after that has run so
// do Device::execute's.
void Run::initializerOrderSchedule() {
  startSchedule(
      ScheduleKind::InitializerOrder,
      "a table of its own, with the plain bindings: its initializer recorded into a command buffer never "
      "submitted (executions refused), then recorded before the execution in one command buffer, submitted, then "
      "Device::execute");
  restore();
  vkdml::BindingTable table = compiled_.createBindingTable();
  bindPlain(table, *boundInputs_);
  {
    Commands unsubmitted(device_);
    mustAccept("recordInitializer",
               [&] { unsubmitted.record([&](VkCommandBuffer cmd) { compiled_.recordInitializer(cmd, table); }); });
    mustRefuse("Device::execute after an initializer recorded but never submitted",
               [&] { device_.execute(compiled_, table); });
    Commands other(device_);
    mustRefuse("record into another command buffer after an initializer recorded but never submitted",
               [&] { other.record([&](VkCommandBuffer cmd) { compiled_.record(cmd, table); }); });
  }  // freed unsubmitted
  mustRefuse("Device::execute after an initializer recorded, never submitted, freed",
             [&] { device_.execute(compiled_, table); });
  checkExecution(before_);  // nothing ran

  Commands commands(device_);
  mustAccept("recordInitializer then record, in one command buffer", [&] {
    commands.record([&](VkCommandBuffer cmd) {
      compiled_.recordInitializer(cmd, table);
      compiled_.record(cmd, table);
    });
  });
  commands.submitAndWait();
  compareWithPlain(checkExecution(before_), 0, "the initializer and the execution in one command buffer");
  restore();
  mustAccept("Device::execute (the initializer has run)", [&] { device_.execute(compiled_, table); });
  compareWithPlain(checkExecution(before_), 0, "Device::execute after the initializer ran");
}

Outcome Run::go() {
  const std::optional<vkdml::Error> verdict = vkdml::validate(c_.desc);
  vkdml::Operator op;
  try {
    op = device_.createOperator(c_.desc);
  } catch (const vkdml::Error& e) {
    checkError(e, "createOperator");
    if (e.code() != vkdml::ErrorCode::InvalidArgument && e.code() != vkdml::ErrorCode::Unsupported)
      finding(str("createOperator failed with code ", static_cast<int>(e.code()), ": ", e.what()));
    if (!verdict || verdict->field() != e.field())
      finding(
          str("validate() and createOperator disagree: ", verdict ? verdict->what() : "accepted", " vs ", e.what()));
    return Outcome::Rejected;
  }
  if (verdict) finding(str("validate() rejects what createOperator accepts: ", verdict->what()));

  for (const DML_TENSOR_DESC* in : c_.inputs) layouts_.push_back(fuzz::readLayout(in));
  layouts_.push_back(fuzz::readLayout(c_.output));
  gCase = str("  operator ", op.name(), describe());
  checkAccepted(op);

  try {
    compiled_ = device_.compileOperator(op, c_.options);
  } catch (const vkdml::Error& e) {
    checkError(e, "compileOperator");
    using P = vkdml::ConvolutionPath;
    const P path = c_.options.convolutionPath;
    const bool unsupportedPath =
        e.code() == vkdml::ErrorCode::Unsupported && (path == P::DotProduct || path == P::CooperativeMatrix);
    const bool rejectedPath =
        e.code() == vkdml::ErrorCode::InvalidArgument && !knownPath(path) &&
        std::string_view(e.what()).find("CompileOptions.convolutionPath") != std::string_view::npos;
    if (!unsupportedPath && !rejectedPath)
      finding(str("compileOperator failed (path ", vkdml::toString(path), "): ", e.what()));
    return Outcome::NotCompiled;
  }
  if (!knownPath(c_.options.convolutionPath))  // checked for every operator (core/options.cpp)
    finding(
        str("compileOperator accepted CompileOptions.convolutionPath ", static_cast<int>(c_.options.convolutionPath)));
  gCase += "  executes:";  // its kernels and transfer commands (initializer aside)
  for (const std::string& name : compiled_.kernelNames()) gCase += " " + name;
  gCase += "\n";
  if (!fitsTable()) return Outcome::TooLarge;

  placeBindings();
  vkdml::BindingTable table = compiled_.createBindingTable();
  for (const fuzz::BindCall& call : c_.calls) bind(table, call);
  for (size_t slot = 0; boundInputs_ && boundOutputs_ && slot < slots(); ++slot) {
    const vkdml::BufferBinding& b = slot == outputSlot() ? (*boundOutputs_)[0] : (*boundInputs_)[slot];
    if (b.buffer) gCase += str("  ", slotName(slot), " bound at [", b.offset, ", +", b.sizeInBytes, ")\n");
  }
  if (!boundInputs_ || !boundOutputs_) {
    // Recording must refuse; nothing is submitted either way.
    struct Recorded {};
    try {
      device_.submitAndWait([&](VkCommandBuffer cmd) {
        compiled_.record(cmd, table);
        throw Recorded{};
      });
    } catch (const vkdml::Error& e) {
      checkError(e, "record");
      return Outcome::NotBound;
    } catch (const Recorded&) {
      finding(str("record accepted a table whose ", boundInputs_ ? "outputs" : "inputs", " were never bound"));
    }
  }
  if (!fitsExecution()) return Outcome::TooLarge;
  properties_ = compiled_.bindingProperties();
  if (properties_.temporaryResourceSize && c_.calls.size() % 2) bindTemporary(table, properties_.temporaryResourceSize);
  try {
    if (properties_.persistentResourceSize) device_.initialize(compiled_, table);
    device_.execute(compiled_, table);
  } catch (const vkdml::Error& e) {
    checkError(e, "execute");
    return Outcome::NotExecuted;
  }
  runSchedules(checkExecution(before_));
  return Outcome::Executed;
}

const char* const kTypeNames[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32",  "UINT16", "UINT8",
                                  "INT32",   "INT16",   "INT8",    "FLOAT64", "UINT64", "INT64"};

// Each slot's tensor: type, sizes, strides (given or packed), total bytes, alignment.
std::string Run::describe() const {
  std::string text = c_.options.convolutionPath == vkdml::ConvolutionPath::Auto
                         ? "\n"
                         : str(", compiled for path ", vkdml::toString(c_.options.convolutionPath), "\n");
  for (size_t slot = 0; slot < slots(); ++slot) {
    if (!layouts_[slot]) continue;
    const Layout& t = *layouts_[slot];
    text += str("  ", slotName(slot), ": ", kTypeNames[t.dataType], ", sizes {");
    for (uint32_t d = 0; d < t.rank; ++d) text += str(d ? "," : "", t.sizes[d]);
    text += "}, strides {";
    for (uint32_t d = 0; d < t.rank; ++d) text += str(d ? "," : "", t.strides[d]);
    text += str("}, TotalTensorSizeInBytes ", t.totalBytes, ", alignment ", t.alignment, "\n");
  }
  return text;
}

Outcome runBytes(const uint8_t* data, size_t size) {
  std::unique_ptr<fuzz::Case> c = fuzz::decode(data, size);
  gCase = str("  operator type ", operatorType(c->desc), " (not accepted yet)\n");
  gSchedule.clear();
  const Outcome outcome = Run(*c).go();
  ++gOutcomes[static_cast<int>(outcome)];
  if (gVerbose) std::fprintf(stderr, "%s\n", kOutcomeNames[static_cast<int>(outcome)]);
  return outcome;
}

void printSummary() {
  std::fprintf(stderr, "descriptor_fuzzer outcomes:");
  for (int i = 0; i < static_cast<int>(Outcome::Count); ++i)
    std::fprintf(stderr, " %s %llu", kOutcomeNames[i], static_cast<unsigned long long>(gOutcomes[i]));
  std::fprintf(stderr, "; schedules after executions:");
  for (int i = 0; i < static_cast<int>(ScheduleKind::Count); ++i)
    std::fprintf(stderr, " %s %llu", kScheduleNames[i], static_cast<unsigned long long>(gSchedules[i]));
  std::fprintf(stderr, "\n");
}

// The seed corpus: for each operator (the first byte picks it), inputs
// drawn from a fixed-seed generator, half their bytes zero (the plain
// choice), kept by outcome: a few executed, one rejected, one whose table
// was never fully bound. Reproducible for a given library.
void writeSeeds(const std::string& dir) {
  const char* const names[] = {"slice1", "join", "scatter_nd", "diagonal_matrix1", "convolution_integer"};
  const std::pair<Outcome, int> wanted[] = {{Outcome::Executed, 4}, {Outcome::Rejected, 1}, {Outcome::NotBound, 1}};
  Splitmix rng{1};
  for (uint8_t op = 0; op < 5; ++op) {
    int kept[static_cast<int>(Outcome::Count)] = {};
    for (int attempt = 0; attempt < 20000; ++attempt) {
      std::vector<uint8_t> bytes(48 + rng() % 160);
      for (auto& b : bytes) b = rng() % 2 ? 0 : static_cast<uint8_t>(rng());
      bytes[0] = op;
      const Outcome o = runBytes(bytes.data(), bytes.size());
      bool done = true;
      for (const auto& [outcome, count] : wanted) {
        int& n = kept[static_cast<int>(outcome)];
        if (outcome == o && n < count) {
          const std::string path = str(dir, "/", names[op], "-", kOutcomeNames[static_cast<int>(o)], "-", n++);
          std::ofstream(path, std::ios::binary)
              .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
          std::fprintf(stderr, "wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
        }
        done = done && n == count;
      }
      if (done) break;
    }
  }
  // An operator type vkdml does not implement.
  const uint8_t invalid[] = {255, 0};
  std::ofstream(dir + "/invalid-operator-type", std::ios::binary).write(reinterpret_cast<const char*>(invalid), 2);
}

bool validationWanted() {  // unless $VKDML_VALIDATION=0
  const char* env = std::getenv("VKDML_VALIDATION");
  return !(env && std::strcmp(env, "0") == 0);
}

std::shared_ptr<vkdml::Device> createDevice() {
  vkdml::DeviceOptions options;
  // lavapipe, unless $VKDML_DEVICE says otherwise: the size limits and the
  // paths left out are chosen for it.
  if (!std::getenv("VKDML_DEVICE")) options.selector = "llvmpipe";
  options.validation = validationWanted();
  options.onValidationMessage = [](const char* message) { finding(str("Vulkan validation: ", message)); };
  gDeviceTable.reset();  // the fuzzer's command buffers load the new device's
  return vkdml::Device::create(options);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  gKeepLoaded = new std::shared_ptr<vkdml::Device>(createDevice());
  gDevice = new std::shared_ptr<vkdml::Device>(createDevice());
  std::fprintf(stderr, "descriptor_fuzzer: device %s, validation %s\n", (*gDevice)->info().name.c_str(),
               (*gDevice)->info().validationEnabled ? "on" : "OFF");
  if (validationWanted() && !(*gDevice)->info().validationEnabled) {
    std::fprintf(stderr, "descriptor_fuzzer: the validation layers are not installed (vulkan-validationlayers)\n");
    std::exit(1);
  }
  std::atexit(printSummary);
  for (int i = 1; i < *argc; ++i)
    if (std::strcmp((*argv)[i], "--write-seeds") == 0 && i + 1 < *argc) {
      writeSeeds((*argv)[i + 1]);
      std::exit(0);
    }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static uint64_t runs = 0;
  if (++runs % kRunsPerDevice == 0) {
    gDevice->reset();
    *gDevice = createDevice();
  }
  runBytes(data, size);
  return 0;
}
