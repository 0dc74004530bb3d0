// DirectML's binding model beyond the tensors: the temporary and persistent
// resources of a binding table (BindingProperties), and the initializer that
// fills the persistent resource from the inputs flagged
// DML_TENSOR_FLAG_OWNED_BY_DML.
#include <cstring>

#include "core/guard.hpp"
#include "device_impl.hpp"

namespace vkdml {
namespace detail {

void barrier(const Device::Impl& d, VkCommandBuffer cmd, VkPipelineStageFlags srcStages, VkAccessFlags srcAccess,
             VkPipelineStageFlags dstStages, VkAccessFlags dstAccess) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  d.vk.vkCmdPipelineBarrier(cmd, srcStages, dstStages, 0, 1, &b, 0, nullptr, 0, nullptr);
}

void publishAddresses(BindingTable::Impl& t) {
  const size_t n = t.slotCount();
  t.addresses.assign(2 * n, 0);
  uint64_t* execution = t.addresses.data();
  uint64_t* initializer = execution + n;
  for (size_t i = 0; i < t.slots.size(); ++i) execution[i] = initializer[i] = t.slots[i] ? t.slots[i]->address : 0;
  auto address = [](const std::optional<BoundRange>& bound, const std::shared_ptr<Buffer::Impl>& own) {
    return bound ? bound->address : own ? own->address : 0;
  };
  const uint64_t persistent = address(t.persistent, t.ownPersistent);
  execution[temporarySlot(t.slots.size())] = initializer[temporarySlot(t.slots.size())] =
      address(t.temporary, t.ownTemporary);
  execution[persistentSlot(t.slots.size())] = initializer[persistentSlot(t.slots.size())] = persistent;
  // Executions read owned inputs from their copies (packed ones not at all).
  for (const auto& owned : t.op->owned) execution[owned.slot] = persistent ? persistent + owned.offset : 0;
  std::memcpy(t.table->mapped, t.addresses.data(), t.addresses.size() * sizeof(uint64_t));
}

namespace {
// The table's own temporary or persistent resource, allocated where there
// is none yet and the operator needs one; true if it was. A new own
// persistent resource holds nothing the initializer wrote.
bool allocateOwn(BindingTable::Impl& t, bool persistent) {
  std::shared_ptr<Buffer::Impl>& own = persistent ? t.ownPersistent : t.ownTemporary;
  const uint64_t bytes = persistent ? t.op->persistentBytes : t.op->scratchBytes;
  if (own || bytes == 0) return false;
  own = allocateBuffer(t.op->device, bytes, detail::BufferUse::Device);
  if (persistent) ++t.epoch;
  return true;
}

// The bound range, else the table's own buffer, allocated now where there
// is none yet.
std::optional<BoundRange> resourceRange(BindingTable::Impl& t, bool persistent) {
  const uint64_t bytes = persistent ? t.op->persistentBytes : t.op->scratchBytes;
  const std::optional<BoundRange>& bound = persistent ? t.persistent : t.temporary;
  if (bytes == 0) return std::nullopt;
  if (bound) return bound;
  if (allocateOwn(t, persistent)) publishAddresses(t);
  const std::shared_ptr<Buffer::Impl>& own = persistent ? t.ownPersistent : t.ownTemporary;
  return BoundRange{own, 0, own->address, bytes};
}
}  // namespace

void pointTable(BindingTable::Impl& t, const std::shared_ptr<const CompiledOperator::Impl>& op) {
  const OperatorPlan& plan = Access::plan(op->op);
  const size_t slots = plan.inputs.size() + plan.outputs.size();
  // Two address arrays (executions', the initializer's) of the slots, the
  // temporary and the persistent resource; then the counters, zeroed with them.
  const uint64_t bytes = tableCountersOffset(slots) + op->tableCounterBytes;
  // Allocated before the table changes: a failure leaves it as it was.
  std::shared_ptr<Buffer::Impl> table =
      t.table && t.table->size >= bytes ? t.table : allocateBuffer(op->device, bytes, detail::BufferUse::Table);
  std::vector<std::optional<BoundRange>> freshSlots(slots);
  std::vector<uint64_t> addresses(2 * (slots + 2), 0);
  t.op = op;
  t.table = std::move(table);
  t.slots.swap(freshSlots);
  // The temporary and persistent resources are allocated on first use,
  // where the caller binds none (temporaryRange, persistentRange).
  t.temporary.reset();
  t.persistent.reset();
  t.ownTemporary.reset();
  t.ownPersistent.reset();
  t.initializerCommands = VK_NULL_HANDLE;
  t.addresses.swap(addresses);
  std::memset(t.table->mapped, 0, bytes);
}

std::optional<BoundRange> temporaryRange(BindingTable::Impl& t) {
  return resourceRange(t, false);
}
std::optional<BoundRange> persistentRange(BindingTable::Impl& t) {
  return resourceRange(t, true);
}

bool ownPersistentInitialized(const BindingTable::Impl& t, VkCommandBuffer cmd) {
  if (!t.ownPersistent) return false;
  if (cmd && cmd == t.initializerCommands && t.initializerEpoch == t.epoch) return true;
  uint32_t done = 0;
  if (t.marker) std::memcpy(&done, t.marker->mapped, sizeof done);
  return done == t.epoch;
}

}  // namespace detail

BindingProperties CompiledOperator::bindingProperties() const {
  if (!impl_)
    throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "bindingProperties", "the compiled operator is empty");
  return {impl_->scratchBytes, impl_->persistentBytes};
}

std::vector<std::string> CompiledOperator::initializerKernelNames() const try {
  std::vector<std::string> names;
  if (impl_)
    for (const auto& d : impl_->recordable().dispatches)
      if (d.initializer) names.push_back(detail::kernelName(d.kernel));
  return names;
} catch (...) {
  detail::rethrowAsError("CompiledOperator", "initializerKernelNames");
}

namespace {
// bindTemporary and bindPersistent: a range of at least `required` bytes at
// a multiple of `alignment`, or nothing (the table's own); checked against
// everything else bound before the table changes.
void bindResource(BindingTable::Impl& t, const BufferBinding& binding, bool persistent) {
  const OperatorPlan& plan = detail::Access::plan(t.op->op);
  const char* name = persistent ? "persistent resource" : "temporary resource";
  std::optional<BoundRange> next;
  if (binding.buffer && *binding.buffer)
    next = detail::resolveRange(
        plan.name, name, *t.op->device, binding,
        persistent ? DML_PERSISTENT_BUFFER_ALIGNMENT : DML_TEMPORARY_BUFFER_ALIGNMENT,
        persistent ? t.op->persistentBytes : t.op->scratchBytes,
        persistent ? "BindingProperties::persistentResourceSize" : "BindingProperties::temporaryResourceSize");
  detail::checkOverlaps(plan, t.slots, persistent ? t.temporary : next, persistent ? next : t.persistent);
  // Back to the table's own: allocated now, before the table changes (a
  // failure leaves it as it was), so that a command buffer recorded before
  // finds an address in the table (a fresh own persistent resource is not
  // initialized: such a command buffer would read garbage;
  // docs/binding-model.md says so).
  if (!next) detail::allocateOwn(t, persistent);
  (persistent ? t.persistent : t.temporary) = std::move(next);
  if (binding.buffer && *binding.buffer) {  // the table's own is no longer needed
    (persistent ? t.ownPersistent : t.ownTemporary).reset();
  }
  detail::publishAddresses(t);
}
}  // namespace

void BindingTable::bindTemporary(const BufferBinding& temporary) try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "bindTemporary", "the binding table is empty");
  bindResource(*impl_, temporary, false);
} catch (...) {
  detail::rethrowAsError("BindingTable", "bindTemporary");
}

void BindingTable::bindPersistent(const BufferBinding& persistent) try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "bindPersistent", "the binding table is empty");
  bindResource(*impl_, persistent, true);
} catch (...) {
  detail::rethrowAsError("BindingTable", "bindPersistent");
}

void BindingTable::reset(const CompiledOperator& op) try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "reset", "the binding table is empty");
  if (!op.impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "op", "the compiled operator is empty");
  if (op.impl_->device != impl_->op->device)
    throw Error(ErrorCode::InvalidArgument, "BindingTable", "op",
                "the operator was compiled for another device than the table's");
  detail::pointTable(*impl_, op.impl_);
} catch (...) {
  detail::rethrowAsError("BindingTable", "reset");
}

void CompiledOperator::recordInitializer(VkCommandBuffer cmd, const BindingTable& bindings) const try {
  if (!impl_)
    throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "recordInitializer", "the compiled operator is empty");
  if (!cmd)
    throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "recordInitializer", "the command buffer is null");
  const OperatorPlan& plan = detail::Access::plan(impl_->op);
  BindingTable::Impl* t = bindings.impl_.get();
  if (!t || t->op.get() != impl_.get())
    detail::throwInvalid(plan.name, "bindings",
                         "the binding table was created by (or reset to) another compiled operator");
  for (const auto& owned : impl_->owned)
    if (!t->slots[owned.slot] || !t->slots[owned.slot]->address)
      detail::throwInvalid(plan.name, plan.inputs[owned.slot].name,
                           "is DML_TENSOR_FLAG_OWNED_BY_DML: the initializer reads it, so bind it (bindInputs) first");
  if (!impl_->hasInitializer()) return;
  detail::persistentRange(*t);
  auto& d = detail::Access::impl(*impl_->device);
  // The table's own persistent resource: a word the GPU sets when the
  // initializer has run (read by ownPersistentInitialized), made first
  // (allocation may fail: nothing is recorded then).
  if (!t->persistent && !t->marker) {
    t->marker = allocateBuffer(impl_->device, sizeof(uint32_t), detail::BufferUse::Readback);
    std::memset(t->marker->mapped, 0, sizeof(uint32_t));
  }
  // Earlier executions may still read the persistent resource.
  detail::barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
  const auto& program = impl_->recordable();
  bool first = true;
  for (size_t i = 0; i < program.dispatches.size(); ++i) {
    if (!program.dispatches[i].initializer) continue;
    if (!first)
      detail::barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    first = false;
    const auto& dispatch = program.dispatches[i];
    // The initializer's slot addresses: the owned inputs as bound.
    uint64_t push[2] = {program.paramsAddress[i], t->table->address + t->slotCount() * 8};
    d.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, program.pipelines[i]);
    d.vk.vkCmdPushConstants(cmd, d.pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    d.vk.vkCmdDispatch(cmd, dispatch.groups[0], dispatch.groups[1], dispatch.groups[2]);
  }
  detail::barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  if (!t->persistent) {
    d.vk.vkCmdFillBuffer(cmd, t->marker->buffer, 0, sizeof(uint32_t), t->epoch);
    detail::barrier(d, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                    VK_ACCESS_HOST_READ_BIT);
    t->initializerCommands = cmd;
    t->initializerEpoch = t->epoch;
  }
} catch (...) {
  detail::rethrowAsError("CompiledOperator", "recordInitializer");
}

void Device::initialize(const CompiledOperator& op, const BindingTable& bindings) try {
  if (!op.impl_) throw Error(ErrorCode::InvalidArgument, "Device", "initialize", "the compiled operator is empty");
  if (op.impl_->device.get() != this)
    throw Error(ErrorCode::InvalidArgument, "Device", "initialize", "the operator was compiled for another device");
  // Whether it ran (the marker says so) or failed, the command buffer's
  // handle, freed when submitAndWait returns, may come back for another
  // that holds no initializer.
  struct Forget {
    BindingTable::Impl* t;
    ~Forget() {
      if (t) t->initializerCommands = VK_NULL_HANDLE;
    }
  } forget{bindings.impl_.get()};
  impl_->submitAndWait([&](VkCommandBuffer cmd) { op.recordInitializer(cmd, bindings); });
} catch (...) {
  detail::rethrowAsError("Device", "initialize");
}

namespace {
// Checks each binding of one side (inputs or outputs) against its slot's
// tensor; returns what the slots would hold. Changes nothing.
std::vector<std::optional<BoundRange>> resolve(const BindingTable::Impl& t, const std::vector<detail::Slot>& slots,
                                               const std::vector<BufferBinding>& bindings, const char* what) {
  const char* op = detail::Access::plan(t.op->op).name;
  if (bindings.size() != slots.size())
    detail::throwInvalid(op, what, detail::concat("expects ", slots.size(), " bindings, got ", bindings.size()));
  std::vector<std::optional<BoundRange>> resolved;
  for (size_t i = 0; i < slots.size(); ++i) {
    const auto& slot = slots[i];
    const BufferBinding& b = bindings[i];
    std::string field = detail::concat(what, "[", i, "] (", slot.name, ")");
    BoundRange range;
    if (!slot.tensor) {
      if (b.buffer && *b.buffer)
        detail::throwInvalid(op, field, "the descriptor leaves this tensor out, so bind nothing (buffer = nullptr)");
    } else if (!b.buffer || !*b.buffer) {
      // With owned inputs, a table serves initialization (which needs
      // those alone) and executions (which need all but those): record()
      // checks what each needs.
      if (!t.op->hasInitializer()) detail::throwInvalid(op, field, "is required but bound to no buffer");
    } else {
      const detail::TensorInfo& tensor = *slot.tensor;
      range = detail::resolveRange(op, field, *t.op->device, b, tensor.offsetAlignment, tensor.totalBytes,
                                   "TotalTensorSizeInBytes");
    }
    resolved.push_back(std::move(range));
  }
  return resolved;
}

// Binds one side: the whole call is checked before the table changes, so
// a rejected call leaves it as it was.
void bindSide(BindingTable::Impl& t, const std::vector<detail::Slot>& slots, size_t first,
              const std::vector<BufferBinding>& bindings, const char* what) {
  std::vector<std::optional<BoundRange>> resolved = resolve(t, slots, bindings, what);
  std::vector<std::optional<BoundRange>> next = t.slots;
  std::move(resolved.begin(), resolved.end(), next.begin() + static_cast<std::ptrdiff_t>(first));
  detail::checkOverlaps(detail::Access::plan(t.op->op), next, t.temporary, t.persistent);
  t.slots = std::move(next);
  detail::publishAddresses(t);
}
}  // namespace

namespace detail {
BoundRange resolveRange(const char* op, const std::string& field, const Device& device, const BufferBinding& b,
                        uint64_t alignment, uint64_t required, const char* requiredName) {
  const Buffer::Impl* buffer = detail::Access::impl(*b.buffer);
  if (buffer->device.get() != &device) throwInvalid(op, field, "the buffer belongs to another device");
  if (b.offset % alignment)
    throwInvalid(op, field + ".Offset", concat("must be a multiple of ", alignment, ", not ", b.offset));
  if (b.sizeInBytes < required)
    throwInvalid(op, field + ".SizeInBytes",
                 concat("must cover ", requiredName, " = ", required, ", not ", b.sizeInBytes));
  if (b.offset > buffer->size || b.sizeInBytes > buffer->size - b.offset)
    throwInvalid(op, field,
                 concat("range of ", b.sizeInBytes, " bytes at offset ", b.offset, " exceeds the buffer's ",
                        buffer->size, " bytes"));
  return {detail::Access::sharedImpl(*b.buffer), b.offset, buffer->address + b.offset, required};
}

// An output may not overlap an input: kernels read inputs while they write
// the output, in no defined order, so any overlap gives wrong answers. The
// one exception is the in-place execution an operator declares
// (OperatorPlan::inPlace): the output bound at its input's address. The two
// share a layout, so the tensor's bytes are the same whatever either range's
// length.
// The temporary and persistent resources are written while every tensor is
// read or written: they overlap nothing.
void checkOverlaps(const OperatorPlan& plan, const std::vector<std::optional<BoundRange>>& slots,
                   const std::optional<BoundRange>& temporary, const std::optional<BoundRange>& persistent) {
  auto overlap = [](const BoundRange& a, const BoundRange& b) {
    return a.bytes && b.bytes && a.address < b.address + b.bytes && b.address < a.address + a.bytes;
  };
  auto where = [](const BoundRange& a, const BoundRange& b) {
    return concat(a.bytes, " bytes at offset ", a.offset, " overlap ", "%s, ", b.bytes, " bytes at offset ", b.offset,
                  a.buffer == b.buffer ? " of the same buffer" : " of an aliasing buffer");
  };
  auto name = [&](size_t slot) {
    return slot < plan.inputs.size() ? concat("inputs[", slot, "] (", plan.inputs[slot].name, ")")
                                     : concat("outputs[", slot - plan.inputs.size(), "] (",
                                              plan.outputs[slot - plan.inputs.size()].name, ")");
  };
  auto fill = [](std::string text, const std::string& what) { return text.replace(text.find("%s"), 2, what); };
  const size_t outputsBegin = plan.inputs.size();
  for (size_t o = outputsBegin; o < slots.size(); ++o) {
    if (!slots[o]) continue;
    for (size_t i = 0; i < outputsBegin; ++i) {
      if (!slots[i] || !overlap(*slots[o], *slots[i])) continue;
      if (plan.inPlace && plan.inPlace->first == i && plan.inPlace->second == o &&
          slots[i]->address == slots[o]->address)
        continue;
      std::string allowed =
          plan.inPlace ? concat("; only ", plan.outputs[plan.inPlace->second - outputsBegin].name,
                                " bound at the address of ", plan.inputs[plan.inPlace->first].name, " runs in place")
                       : "";
      throwInvalid(
          plan.name, name(o),
          concat("its ", fill(where(*slots[o], *slots[i]), name(i)), ": an output must not overlap an input", allowed));
    }
  }
  const std::pair<const std::optional<BoundRange>*, const char*> resources[] = {{&temporary, "temporary resource"},
                                                                                {&persistent, "persistent resource"}};
  for (const auto& [resource, resourceName] : resources) {
    if (!*resource) continue;
    for (size_t i = 0; i < slots.size(); ++i)
      if (slots[i] && overlap(**resource, *slots[i]))
        throwInvalid(plan.name, resourceName,
                     concat("its ", fill(where(**resource, *slots[i]), name(i)),
                            ": it must overlap no tensor bound to the table"));
  }
  if (temporary && persistent && overlap(*temporary, *persistent))
    throwInvalid(
        plan.name, "persistent resource",
        concat("its ", fill(where(*persistent, *temporary), "the temporary resource"), ": the two must not overlap"));
}
}  // namespace detail

void BindingTable::bindInputs(const std::vector<BufferBinding>& inputs) try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "bindInputs", "the binding table is empty");
  bindSide(*impl_, detail::Access::plan(impl_->op->op).inputs, 0, inputs, "inputs");
} catch (...) {
  detail::rethrowAsError("BindingTable", "bindInputs");
}

void BindingTable::bindOutputs(const std::vector<BufferBinding>& outputs) try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "bindOutputs", "the binding table is empty");
  const OperatorPlan& plan = detail::Access::plan(impl_->op->op);
  bindSide(*impl_, plan.outputs, plan.inputs.size(), outputs, "outputs");
} catch (...) {
  detail::rethrowAsError("BindingTable", "bindOutputs");
}

}  // namespace vkdml
