// A case's bind calls (Run::bind): where each binding points, which calls
// must be accepted and what an accepted binding obeys; and the temporary and
// persistent resources of the fuzzer's, with the bindings of them that must be
// refused (fuzz/README.md, "What counts as a finding").
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "harness.hpp"

namespace fuzz {

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
  const size_t expected = call.outputs ? 1 : outputSlot();
  // Each slot its own region, which holds its tensor at its alignment, and
  // the other side's bindings (if any) too: nothing overlaps, every rule holds.
  bool plain = bindings.size() == expected && (call.outputs ? inputsPlain_ : outputsPlain_);
  for (size_t i = 0; i < call.bindings.size(); ++i) {
    const size_t slot = first + i;
    plain = plain && call.bindings[i].kind == BindingChoice::Own &&
            (slot >= slots() || !layouts_[slot] ||
             (regionBytes(slot) == layouts_[slot]->totalBytes && layouts_[slot]->alignment <= kRegionAlignment));
  }
  try {
    if (call.outputs)
      table.bindOutputs(bindings);
    else
      table.bindInputs(bindings);
  } catch (const vkdml::Error& e) {
    checkError(e, name);
    if (plain) finding(str(name, " refused every slot bound to its own region: ", e.what()));
    return;  // the table keeps what it held
  }
  (call.outputs ? outputsPlain_ : inputsPlain_) = plain;
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

// Bindings of a temporary or persistent resource (`call`: bind) that must be
// refused with InvalidArgument: an offset not a multiple of `alignment`; then,
// as Case::temporaryMisuse says, a range one byte short of `bytes`, one past
// `own`'s end, or one over `bound` (a tensor's binding in the table), if any.
void Run::refuseMisuse(const char* call, const std::function<void(const vkdml::BufferBinding&)>& bind,
                       const vkdml::Buffer& own, uint64_t bytes, uint64_t alignment,
                       const vkdml::BufferBinding* bound) const {
  auto refused = [&](const vkdml::BufferBinding& b, const char* what) {
    try {
      bind(b);
      finding(str(call, " accepted ", what, ": ", b.sizeInBytes, " bytes at offset ", b.offset));
    } catch (const vkdml::Error& e) {
      checkError(e, call);
      if (e.code() != vkdml::ErrorCode::InvalidArgument) finding(str(call, " refused ", what, ": ", e.what()));
    }
  };
  refused({&own, alignment / 2, bytes}, "an offset not a multiple of its alignment");
  switch (c_.temporaryMisuse) {
    case 1:
      refused(resource(own, bytes - 1), "a range short of its size");
      break;
    case 2:
      refused({&own, 3 * kGuard, bytes}, "a range past its buffer's end");  // own holds 2 * kGuard more
      break;
    case 3:
      if (bound && bound->buffer == &buffer_ && bound->sizeInBytes) {
        const uint64_t at = bound->offset / alignment * alignment;
        refused({&buffer_, at, std::max(bytes, bound->offset - at + bound->sizeInBytes)}, "a range over a tensor's");
      }
      break;
  }
}

// A temporary resource of the caller's, full of garbage, in a buffer of its
// own, after the bindings of it that must be refused.
void Run::bindTemporary(vkdml::BindingTable& table, uint64_t bytes) {
  temporary_ = resourceBuffer(bytes);
  refuseMisuse(
      "bindTemporary", [&](const vkdml::BufferBinding& b) { table.bindTemporary(b); }, temporary_, bytes,
      DML_TEMPORARY_BUFFER_ALIGNMENT, &(*boundOutputs_)[0]);
  table.bindTemporary(resource(temporary_, bytes));
  boundTemporary_ = true;
  if (c_.temporaryMisuse == 4) {
    table.bindTemporary({});  // the table's own again, allocated now
    boundTemporary_ = false;
  }
}

// A temporary or persistent resource of the fuzzer's, full of garbage,
// bound at offset kGuard (resource()) with kGuard bytes after it.
vkdml::Buffer Run::resourceBuffer(uint64_t bytes) {
  vkdml::Buffer b = device_.createBuffer(bytes + 2 * kGuard);
  b.fill(0xFFFFFFFFu, (bytes + 2 * kGuard) & ~uint64_t(3));
  return b;
}

// The bytes of a resourceBuffer around its bound range are as it filled them.
void Run::checkResourceGuards(const vkdml::Buffer& b, uint64_t bytes, const char* what) const {
  const uint64_t filled = (bytes + 2 * kGuard) & ~uint64_t(3);
  std::vector<uint8_t> after(filled);
  b.download(after.data(), filled);
  for (uint64_t i = 0; i < filled; ++i)
    if ((i < kGuard || i >= kGuard + bytes) && after[i] != 0xFF)
      finding(str("the ", what, " resource's byte ", static_cast<int64_t>(i - kGuard), " (of ", bytes,
                  " bound) changed: a write outside its binding"));
}

}  // namespace fuzz
