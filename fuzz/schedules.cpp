// The schedules (fuzz::Schedule): after a plain execution, the same case
// again in the binding model's other orders (docs/binding-model.md), each of
// which must give the plain execution's output with the guards intact
// (fuzz/README.md, "What counts as a finding").
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

#include "commands.hpp"
#include "harness.hpp"

namespace fuzz {

namespace {

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

// Names the schedule that runs now (for its findings), counts it.
void startSchedule(ScheduleKind kind, const std::string& steps) {
  gSchedule = kScheduleNames[static_cast<int>(kind)];
  gScheduleSteps = steps;
  ++gSchedules[static_cast<int>(kind)];
  if (gVerbose) std::fprintf(stderr, "  schedule %s: %s\n", gSchedule.c_str(), steps.c_str());
}

}  // namespace

// The buffer as the plain execution found it.
void Run::restore() {
  buffer_.upload(before_.data(), bufferBytes_);
}

// DML_SCATTER_ND's index tuples, in order, as scatter_nd.comp resolves them
// (a negative coordinate of a signed type counts from the end, then each is
// clamped into its dimension): the targets they name, row-major over the k
// dimensions after `first`. A layout vkdml must have refused is a finding.
std::vector<uint64_t> Run::scatterTargets(uint32_t& first, uint32_t& k) const {
  const auto& d = *static_cast<const DML_SCATTER_ND_OPERATOR_DESC*>(c_.desc.Desc);
  const Layout &indices = *layouts_[1], &out = *layouts_[outputSlot()];
  const uint32_t rank = out.rank;
  k = indices.rank ? indices.sizes[indices.rank - 1] : 0;
  if (indices.rank != rank || d.InputDimensionCount > rank || k == 0 || k > d.InputDimensionCount)
    finding(str("accepted DML_SCATTER_ND with IndicesTensor of ", indices.rank, " dimensions, the last of size ", k,
                ", InputDimensionCount ", d.InputDimensionCount, " and an output of ", rank,
                " (every tensor of one rank; the last size 1..InputDimensionCount)"));
  first = rank - d.InputDimensionCount;
  const bool isSigned =
      indices.dataType == DML_TENSOR_DATA_TYPE_INT32 || indices.dataType == DML_TENSOR_DATA_TYPE_INT64;
  const uint64_t base = (*boundInputs_)[1].offset;
  std::vector<uint64_t> targets;
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
      targets.push_back(target);
      target = 0;
      component = 0;
    }
  });
  return targets;
}

// DML_SCATTER_ND's targets that two index tuples name: their elements are
// left out of the comparisons with the plain execution, as the winner is
// unspecified (checkScatterValues checks that it is one of them).
void Run::findAmbiguousTargets() {
  ambiguous_.clear();
  if (operatorType(c_.desc) != DML_OPERATOR_SCATTER_ND) return;
  const Layout& out = *layouts_[outputSlot()];
  const uint64_t elements = static_cast<uint64_t>(out.elementCount);
  if (elements == 0) return;
  uint32_t first = 0, k = 0;
  const std::vector<uint64_t> tuples = scatterTargets(first, k);
  uint64_t targets = 1;
  for (uint32_t i = 0; i < k; ++i) targets *= out.sizes[first + i];  // at most the output's elements
  std::vector<uint8_t> hits(targets);
  for (uint64_t t : tuples)
    if (hits[t] < 2) ++hits[t];
  ambiguous_.assign(elements, 0);
  std::array<uint32_t, DML_TENSOR_DIMENSION_COUNT_MAX1> coordinate{};
  for (uint64_t n = 0; n < elements; ++n) {
    uint64_t t = 0;
    for (uint32_t i = 0; i < k; ++i) t = t * out.sizes[first + i] + coordinate[first + i];
    ambiguous_[n] = hits[t] > 1;
    for (uint32_t dim = out.rank; dim-- > 0;) {
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

void Run::runSchedules(std::vector<uint8_t> plainAfter) {
  const Schedule& s = c_.schedule;
  const bool owned = s.owned && anyOwned();
  const bool initializerOrder = s.initializerOrder && properties_.persistentResourceSize;
  if (!owned && !s.rebind && !initializerOrder && !s.otherPlan) return;
  plainAfter_ = std::move(plainAfter);
  findAmbiguousTargets();
  if (owned) ownedSchedule();
  if (s.rebind) rebindSchedule();
  if (initializerOrder) initializerOrderSchedule();
  if (s.otherPlan) otherPlanSchedule();
  gSchedule.clear();
}

// Owned inputs: initialized with a table that binds them alone (and a
// persistent resource, the table's own or the fuzzer's), then overwritten
// with garbage, then executed with them bound to nothing or still bound (to
// the garbage): executions read the initialized copies.
void Run::ownedSchedule() {
  const Schedule& s = c_.schedule;
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
    const auto firstOwned = std::find_if(ownedOnly.begin(), ownedOnly.end(), [](auto& b) { return b.buffer; });
    refuseMisuse(
        "bindPersistent", [&](const vkdml::BufferBinding& b) { init.bindPersistent(b); }, persistent,
        properties_.persistentResourceSize, DML_PERSISTENT_BUFFER_ALIGNMENT,
        firstOwned == ownedOnly.end() ? nullptr : &*firstOwned);
    mustAccept("bindPersistent",
               [&] { init.bindPersistent(resource(persistent, properties_.persistentResourceSize)); });
  }
  mustAccept("Device::initialize", [&] { device_.initialize(compiled_, init); });

  // Garbage over the owned inputs' ranges. An input not owned that reads
  // bytes of one is bound instead to a mirror, a buffer holding the
  // original bytes at the same offsets.
  std::vector<uint8_t> state = before_, garbled(bufferBytes_, 0);
  for (size_t slot = 0; slot < outputSlot(); ++slot) {
    if (!layouts_[slot] || !owned(slot)) continue;
    const uint64_t at = (*boundInputs_)[slot].offset;
    for (uint64_t i = at; i < at + layouts_[slot]->totalBytes; ++i) {
      state[i] = static_cast<uint8_t>(~state[i]);
      garbled[i] = 1;
    }
  }
  vkdml::Buffer mirror;
  for (size_t slot = 0; slot < outputSlot(); ++slot) {
    if (!layouts_[slot] || owned(slot)) continue;
    const uint64_t at = (*boundInputs_)[slot].offset;
    const uint64_t end = std::min<uint64_t>(bufferBytes_, at + static_cast<uint64_t>(layouts_[slot]->footprintBytes));
    if (std::find(garbled.begin() + static_cast<long>(at), garbled.begin() + static_cast<long>(end), 1) ==
        garbled.begin() + static_cast<long>(end))
      continue;
    if (!mirror) {
      mirror = device_.createBuffer(alignUp(bufferBytes_, 4));
      mirror.upload(before_.data(), bufferBytes_);
      gScheduleSteps += str(", input ", slot, " (reading an owned input's bytes) bound to a mirror");
      if (gVerbose) std::fprintf(stderr, "  input %zu bound to a mirror\n", slot);
    }
    inputs[slot].buffer = &mirror;
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
  if (mirror) {
    std::vector<uint8_t> after(bufferBytes_);
    mirror.download(after.data(), bufferBytes_);
    if (after != before_) finding("the execution wrote the mirror, bound to inputs alone");
  }
  if (boundPersistent) checkResourceGuards(persistent, properties_.persistentResourceSize, "persistent");
}

// The inputs the second submission of the rebind schedule binds to the real
// buffer (Schedule::rebindSome), by slot. A mixed table's are picked by the
// data seed, at least one input on each side where two are present.
std::vector<bool> Run::reboundInputs() const {
  const uint8_t some = c_.schedule.rebindSome;
  std::vector<bool> rebound(outputSlot(), some != 2);
  if (some < 3) return rebound;
  std::vector<size_t> present;
  for (size_t slot = 0; slot < outputSlot(); ++slot)
    if (layouts_[slot]) present.push_back(slot);
  if (present.size() < 2) return rebound;
  const uint64_t pick = c_.dataSeed >> 40;
  for (size_t i = 0; i < present.size(); ++i) rebound[present[i]] = (pick >> i) & 1;
  const bool first = rebound[present[0]];
  if (std::all_of(present.begin(), present.end(), [&](size_t slot) { return rebound[slot] == first; }))
    rebound[present[1 + pick % (present.size() - 1)]] = !first;
  return rebound;
}

// The elements' bytes of the inputs `garbled` names in `bytes` (the
// buffer's, `shift` bytes further) inverted, once where inputs overlap and
// not where an input it does not name reads them: what a stale binding of
// one of those inputs would then read, on the side the others are bound to.
void Run::garbleInputs(std::vector<uint8_t>& bytes, uint64_t shift, const std::vector<bool>& garbled) const {
  std::vector<uint8_t> read(bytes.size(), 0);  // 1: a garbled input's byte, 2: another input's
  for (int pass = 1; pass <= 2; ++pass)
    for (size_t slot = 0; slot < outputSlot(); ++slot) {
      if (!layouts_[slot] || garbled[slot] != (pass == 1)) continue;
      const uint64_t base = shift + (*boundInputs_)[slot].offset;
      const Layout& t = *layouts_[slot];
      t.forEachElement([&](uint64_t at) {
        std::fill_n(read.begin() + static_cast<long>(base + at), t.elementSize, static_cast<uint8_t>(pass));
      });
    }
  for (size_t i = 0; i < bytes.size(); ++i)
    if (read[i] == 1) bytes[i] = static_cast<uint8_t>(~bytes[i]);
}

// Per byte of the buffer: whether an output element occupies it.
std::vector<uint8_t> Run::outputBytes() const {
  std::vector<uint8_t> mask(bufferBytes_, 0);
  const Layout& out = *layouts_[outputSlot()];
  const uint64_t base = (*boundOutputs_)[0].offset;
  out.forEachElement(
      [&](uint64_t at) { std::fill_n(mask.begin() + static_cast<long>(base + at), out.elementSize, 1); });
  return mask;
}

// Rebind-and-resubmit: recorded into the fuzzer's command buffer with every
// slot bound to a decoy (another buffer holding the same bytes, further on),
// submitted; then the slots rebound to the real buffer (every one, or the
// inputs alone, or the output alone, or some inputs with or without the
// output), the decoys dropped or kept, the same command buffer submitted
// again.
void Run::rebindSchedule() {
  const Schedule& s = c_.schedule;
  uint64_t alignment = DML_PERSISTENT_BUFFER_ALIGNMENT;  // and the temporary resource's; powers of two
  for (const auto& t : layouts_)
    if (t) alignment = std::max<uint64_t>(alignment, t->alignment);
  if (alignment > kRegionAlignment) return;  // no binding of such a tensor was accepted
  const uint64_t shift = alignment * s.decoyShift;
  const int persistentMode = properties_.persistentResourceSize ? s.rebindPersistent : -1;
  const bool rebindOutput = s.rebindSome != 1 && s.rebindSome != 4;
  const std::vector<bool> rebound = reboundInputs();
  const bool kept = s.decoyKept || s.rebindSome;
  const char* const persistentModes[] = {
      ", the table's own persistent resource initialized with the decoys bound",
      ", the table's own persistent resource, its initializer recorded before the execution",
      ", a persistent resource of the fuzzer's initialized from the decoys, then one from the real inputs"};
  std::string some = "inputs";
  for (size_t slot = 0; slot < rebound.size(); ++slot)
    if (layouts_[slot] && rebound[slot]) some += str(" ", slot);
  const std::string sides[] = {"every slot", "the inputs alone (their elements garbled in the decoy)",
                               "the output alone (the inputs' elements garbled in the real buffer)",
                               some + " and the output (each input's elements garbled on the other side)",
                               some + " alone (each input's elements garbled on the other side)"};
  startSchedule(ScheduleKind::Rebind,
                str("recorded with every slot bound to a decoy buffer ", shift, " bytes further, submitted, ",
                    sides[s.rebindSome], " rebound to the real buffer, the decoy ",
                    !kept          ? "dropped"
                    : s.rebindSome ? "kept"
                                   : "kept (refilled with garbage)",
                    ", submitted again", persistentMode >= 0 ? persistentModes[persistentMode] : ""));
  restore();
  const uint64_t decoyBytes = alignUp(shift + bufferBytes_, 4);
  vkdml::Buffer decoy = device_.createBuffer(decoyBytes);
  std::vector<uint8_t> decoyState(decoyBytes, 0xC3);
  std::copy(before_.begin(), before_.end(), decoyState.begin() + static_cast<long>(shift));
  decoy.upload(decoyState.data(), decoyBytes);
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
  std::vector<uint8_t> decoyAfter(decoyBytes);
  decoy.download(decoyAfter.data(), decoyBytes);
  compareWithPlain(decoyAfter, shift, "the first submission, into the decoy");
  if (boundTemporary_) checkResourceGuards(decoyTemporary, properties_.temporaryResourceSize, "decoy temporary");
  if (persistentMode == 2) checkResourceGuards(decoyPersistent, properties_.persistentResourceSize, "decoy persistent");

  if (s.rebindSome != 2) {
    std::vector<vkdml::BufferBinding> inputs = decoys(*boundInputs_);
    for (size_t slot = 0; slot < inputs.size(); ++slot)
      if (rebound[slot]) inputs[slot] = (*boundInputs_)[slot];
    mustAccept("bindInputs (rebound)", [&] { table.bindInputs(inputs); });
  }
  if (rebindOutput) mustAccept("bindOutputs (rebound)", [&] { table.bindOutputs(*boundOutputs_); });
  if (boundTemporary_)
    mustAccept("bindTemporary (rebound)",
               [&] { table.bindTemporary(resource(temporary_, properties_.temporaryResourceSize)); });
  if (persistentMode == 2)
    mustAccept("bindPersistent (rebound)",
               [&] { table.bindPersistent(resource(persistent, properties_.persistentResourceSize)); });
  std::vector<uint8_t> state = before_;  // the real buffer's bytes before the second submission
  if (s.rebindSome) {
    std::vector<bool> left(rebound.size());
    for (size_t slot = 0; slot < rebound.size(); ++slot) left[slot] = !rebound[slot];
    garbleInputs(decoyState, shift, rebound);
    garbleInputs(state, 0, left);
    decoy.upload(decoyState.data(), decoyBytes);
    buffer_.upload(state.data(), bufferBytes_);
  } else if (s.decoyKept) {
    decoy.fill(0x5A5A5A5Au, decoyBytes);
    std::fill(decoyState.begin(), decoyState.end(), 0x5A);
  } else {
    // The table held the decoys' last references (a command buffer holds none).
    decoy = {};
    decoyTemporary = {};
    decoyPersistent = {};
  }
  commands.submitAndWait();
  if (kept) {
    decoy.download(decoyAfter.data(), decoyBytes);
    std::vector<uint8_t> written(decoyBytes, 0);
    if (!rebindOutput) {
      compareWithPlain(decoyAfter, shift, "the second submission, into the decoy its output stayed bound to");
      const std::vector<uint8_t> mask = outputBytes();
      std::copy(mask.begin(), mask.end(), written.begin() + static_cast<long>(shift));
    }
    for (uint64_t i = 0; i < decoyBytes; ++i)
      if (!written[i] && decoyAfter[i] != decoyState[i])
        finding(str("the second submission wrote byte ", i, " of the decoy buffer (the real buffer's byte ",
                    static_cast<int64_t>(i - shift),
                    "), not an output element bound there: it followed a stale binding"));
  }
  if (rebindOutput) {
    compareWithPlain(checkExecution(state), 0, "the second submission, rebound");
  } else {
    std::vector<uint8_t> after(bufferBytes_);
    buffer_.download(after.data(), bufferBytes_);
    for (uint64_t i = 0; i < bufferBytes_; ++i)
      if (after[i] != state[i])
        finding(
            str("the second submission wrote byte ", i, " of the real buffer, its output still bound to the decoy"));
  }
  if (boundTemporary_) checkResourceGuards(temporary_, properties_.temporaryResourceSize, "temporary");
  if (persistentMode == 2) checkResourceGuards(persistent, properties_.persistentResourceSize, "persistent");
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

// Another plan: the same operator compiled for another convolution path
// (Portable, or DotProduct where the plain one was Portable: other kernels)
// and the other copy path (the copy kernel, or transfer commands where
// lavapipe's Auto takes them), run with the plain bindings and tables' own
// resources. Its output must be the plain one's, bit for bit.
void Run::otherPlanSchedule() {
  using P = vkdml::ConvolutionPath;
  vkdml::CompileOptions options = c_.options;
  options.convolutionPath = options.convolutionPath == P::Portable ? P::DotProduct : P::Portable;
  options.copyPath = options.copyPath == vkdml::CopyPath::Kernel ? vkdml::CopyPath::Auto : vkdml::CopyPath::Kernel;
  startSchedule(ScheduleKind::OtherPlan,
                str("compiled again for path ", vkdml::toString(options.convolutionPath), ", copy path ",
                    options.copyPath == vkdml::CopyPath::Kernel ? "kernel" : "auto", ", executed"));
  vkdml::CompiledOperator other;
  try {
    other = device_.compileOperator(op_, options);
  } catch (const vkdml::Error& e) {
    checkError(e, "compileOperator (another plan)");
    if (e.code() == vkdml::ErrorCode::Unsupported && !deviceHasPath(device_, options.convolutionPath))
      return;  // DotProduct, where the device lacks it
    finding(str("compileOperator refused another plan of what it compiled: ", e.what()));
  }
  gScheduleSteps += str(" (", other.kernelNames().size(), " kernels:");
  for (const std::string& name : other.kernelNames()) gScheduleSteps += " " + name;
  gScheduleSteps += ")";
  restore();
  vkdml::BindingTable table = other.createBindingTable();
  mustAccept("bindInputs", [&] { table.bindInputs(*boundInputs_); });
  mustAccept("bindOutputs", [&] { table.bindOutputs(*boundOutputs_); });
  if (other.bindingProperties().persistentResourceSize)
    mustAccept("Device::initialize", [&] { device_.initialize(other, table); });
  mustAccept("Device::execute", [&] { device_.execute(other, table); });
  compareWithPlain(checkExecution(before_), 0, "another plan");
}

}  // namespace fuzz
