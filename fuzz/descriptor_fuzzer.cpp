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

#include <vkdml/vkdml.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "decode.hpp"
#include "harness.hpp"
#include "layout.hpp"

namespace {

using namespace fuzz;  // decode.hpp, layout.hpp, harness.hpp (finding, str, the limits, Run)

// The device the cases run on (fuzz::gDevice). Its pipeline cache keeps one
// pipeline per kernel and specialization (the convolution's tile shapes alone
// make hundreds), each with lavapipe's compiled code: a fresh device every
// kRunsPerDevice runs bounds the process's memory (and checks that releasing
// one draws no validation message). A second device, never used nor
// released, keeps lavapipe and the layers loaded, so that LeakSanitizer can
// name their frames (tests/lsan.supp) at exit too.
std::shared_ptr<vkdml::Device>* gKeepLoaded = nullptr;
constexpr uint64_t kRunsPerDevice = 50000;

// decode.cpp also draws values outside the enumerations, which compile must
// reject: the first such field in the order compileOperator checks them
// (core/options.cpp), or null.
const char* invalidOption(const vkdml::CompileOptions& o) {
  auto past = [](auto value, auto last) { return static_cast<uint32_t>(value) > static_cast<uint32_t>(last); };
  if (past(o.convolutionPath, vkdml::ConvolutionPath::CooperativeMatrixKHR)) return "CompileOptions.convolutionPath";
  if (past(o.convolutionPacking, vkdml::ConvolutionPacking::ChannelsLast)) return "CompileOptions.convolutionPacking";
  if (past(o.copyPath, vkdml::CopyPath::Kernel)) return "CompileOptions.copyPath";
  if (past(o.dotKernel, vkdml::DotKernel::Tiled)) return "CompileOptions.dotKernel";
  return nullptr;
}

const char* const kOutcomeNames[] = {"rejected", "not-compiled", "too-large", "not-bound", "not-executed", "executed"};
uint64_t gOutcomes[static_cast<int>(Outcome::Count)] = {};
uint64_t gUnperturbed = 0;  // cases whose descriptor was built by every rule (Case::perturbed)

struct Splitmix {
  uint64_t state;
  uint64_t operator()() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

}  // namespace

namespace fuzz {

void Run::checkAccepted(const vkdml::Operator& op) const {
  if (op.inputCount() != c_.inputs.size() || op.outputCount() != 1)
    finding(str("the operator has ", op.inputCount(), " inputs and ", op.outputCount(), " outputs; its descriptor ",
                c_.inputs.size(), " and 1"));
  for (size_t slot = 0; slot < slots(); ++slot) {
    const DML_TENSOR_DESC* desc = slot == outputSlot() ? c_.output : c_.inputs[slot];
    if (!desc) continue;  // an optional tensor left out
    if (!layouts_[slot]) finding(str("accepted ", slotName(slot), ", whose descriptor is not a readable tensor"));
    const Layout& t = *layouts_[slot];
    if ((t.footprintBytes + 3) / 4 * 4 > t.totalBytes)
      finding(str("accepted ", slotName(slot), " with TotalTensorSizeInBytes ", t.totalBytes,
                  " while its elements span ", fuzz::decimal(t.footprintBytes), " bytes (rounded up to 4)"));
    if (t.elementCount > 0xFFFFFFFFu)
      finding(
          str("accepted ", slotName(slot), " with ", fuzz::decimal(t.elementCount), " elements (at most 2^32 - 1)"));
    for (uint32_t d = 0; d < t.rank; ++d)
      if (t.sizes[d] == 0) finding(str("accepted ", slotName(slot), " with Sizes[", d, "] 0"));
    if ((t.alignment & (t.alignment - 1)) || t.alignment < t.elementSize)
      finding(str("accepted ", slotName(slot), " with GuaranteedBaseOffsetAlignment ", t.alignment,
                  " (0, or a power of two no less than the element size)"));
    if (t.flags & ~uint32_t(DML_TENSOR_FLAG_OWNED_BY_DML) || (slot == outputSlot() && t.flags))
      finding(str("accepted ", slotName(slot), " with Flags ", t.flags));
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

Outcome Run::go() {
  const std::optional<vkdml::Error> verdict = vkdml::validate(c_.desc);
  try {
    op_ = device_.createOperator(c_.desc);
  } catch (const vkdml::Error& e) {
    checkError(e, "createOperator");
    if (e.code() != vkdml::ErrorCode::InvalidArgument && e.code() != vkdml::ErrorCode::Unsupported)
      finding(str("createOperator failed with code ", static_cast<int>(e.code()), ": ", e.what()));
    if (!c_.perturbed) finding(str("createOperator refused a descriptor built by every rule: ", e.what()));
    if (!verdict || verdict->field() != e.field())
      finding(
          str("validate() and createOperator disagree: ", verdict ? verdict->what() : "accepted", " vs ", e.what()));
    return Outcome::Rejected;
  }
  if (verdict) finding(str("validate() rejects what createOperator accepts: ", verdict->what()));

  for (const DML_TENSOR_DESC* in : c_.inputs) layouts_.push_back(fuzz::readLayout(in));
  layouts_.push_back(fuzz::readLayout(c_.output));
  gCase = str("  operator ", op_.name(), describe());
  checkAccepted(op_);

  try {
    compiled_ = device_.compileOperator(op_, c_.options);
  } catch (const vkdml::Error& e) {
    checkError(e, "compileOperator");
    const vkdml::ConvolutionPath path = c_.options.convolutionPath;
    // A path forced on a convolution where the device lists it not.
    const bool unsupportedPath = e.code() == vkdml::ErrorCode::Unsupported &&
                                 operatorType(c_.desc) == DML_OPERATOR_CONVOLUTION_INTEGER &&
                                 path != vkdml::ConvolutionPath::Auto && !deviceHasPath(device_, path) &&
                                 std::string_view(e.field()) == "CompileOptions.convolutionPath";
    const bool rejectedOption = e.code() == vkdml::ErrorCode::InvalidArgument && invalidOption(c_.options) &&
                                std::string_view(e.field()) == invalidOption(c_.options);
    if (!unsupportedPath && !rejectedOption)
      finding(str("compileOperator failed (path ", vkdml::toString(path), "): ", e.what()));
    return Outcome::NotCompiled;
  }
  if (const char* field = invalidOption(c_.options))  // checked for every operator (core/options.cpp)
    finding(str("compileOperator accepted ", field, " out of its enumeration"));
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
    if (inputsPlain_ && outputsPlain_)
      finding(str("refused to execute with every slot bound to its own region: ", e.what()));
    return Outcome::NotExecuted;
  }
  if (boundTemporary_) checkResourceGuards(temporary_, properties_.temporaryResourceSize, "temporary");
  std::vector<uint8_t> after = checkExecution(before_);
  checkValues(after);
  runSchedules(std::move(after));
  return Outcome::Executed;
}

// Each slot's tensor: type, sizes, strides (given or packed), total bytes, alignment.
std::string Run::describe() const {
  std::string text = c_.options.convolutionPath == vkdml::ConvolutionPath::Auto
                         ? "\n"
                         : str(", compiled for path ", vkdml::toString(c_.options.convolutionPath), "\n");
  for (size_t slot = 0; slot < slots(); ++slot) {
    if (!layouts_[slot]) continue;
    const Layout& t = *layouts_[slot];
    // The raw bits may name no type (decode.cpp).
    const std::string type = t.dataType <= DML_TENSOR_DATA_TYPE_INT64
                                 ? vkdml::toString(static_cast<DML_TENSOR_DATA_TYPE>(t.dataType))
                                 : str("data type ", t.dataType);
    text += str("  ", slotName(slot), ": ", type, ", sizes {");
    for (uint32_t d = 0; d < t.rank; ++d) text += str(d ? "," : "", t.sizes[d]);
    text += "}, strides {";
    for (uint32_t d = 0; d < t.rank; ++d) text += str(d ? "," : "", t.strides[d]);
    text += str("}, TotalTensorSizeInBytes ", t.totalBytes, ", alignment ", t.alignment, "\n");
  }
  return text;
}

}  // namespace fuzz

namespace {

Outcome runBytes(const uint8_t* data, size_t size) {
  std::unique_ptr<fuzz::Case> c = fuzz::decode(data, size);
  gCase = str("  operator type ", operatorType(c->desc), " (not accepted yet)\n");
  gSchedule.clear();
  gUnperturbed += !c->perturbed;
  const Outcome outcome = Run(*c).go();
  ++gOutcomes[static_cast<int>(outcome)];
  if (gVerbose) std::fprintf(stderr, "%s\n", kOutcomeNames[static_cast<int>(outcome)]);
  return outcome;
}

void printSummary() {
  std::fprintf(stderr, "descriptor_fuzzer outcomes:");
  for (int i = 0; i < static_cast<int>(Outcome::Count); ++i)
    std::fprintf(stderr, " %s %llu", kOutcomeNames[i], static_cast<unsigned long long>(gOutcomes[i]));
  std::fprintf(stderr, "; built by every rule %llu", static_cast<unsigned long long>(gUnperturbed));
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
  forgetDeviceTable();  // the fuzzer's command buffers load the new device's
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
