// Compiling a plan into pipelines and a parameter buffer, and recording its
// dispatches.
#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <optional>
#include <system_error>
#include <thread>

#include "core/copy.hpp"
#include "core/fill.hpp"
#include "core/guard.hpp"
#include "device_impl.hpp"
#include "ops/operators.hpp"

namespace vkdml {

Operator Device::createOperator(const DML_OPERATOR_DESC& desc) try {
  return Operator(detail::createPlan(desc));
} catch (...) {
  detail::rethrowAsError("Device", "createOperator");
}

namespace {
constexpr size_t kRegionsPerCopy = 64;

using Program = CompiledOperator::Impl::Program;

// Refuses a dispatch whose loops the planner left unmodeled or over the budget.
void checkLoopBudget(const OperatorPlan& plan, const std::vector<detail::Dispatch>& dispatches) {
  for (const auto& d : dispatches)
    if (d.loopPasses > detail::kLoopBudget)
      throw Error(ErrorCode::Internal, plan.name, detail::kernelName(d.kernel),
                  detail::concat(plan.name, ": ", detail::kernelName(d.kernel), ": an invocation could make ",
                                 d.loopPasses, " loop passes, more than the budget of ", detail::kLoopBudget,
                                 " (kLoopBudget): the planner must split this work"));
}

using PipelineKey = Device::Impl::PipelineKey;
using Pipelines = std::map<PipelineKey, std::shared_ptr<const detail::Pipeline>>;

// The pipelines and the parameter blocks (all in one device-local buffer,
// each 256-byte aligned) of `dispatches`: those in `ready` (compiled ahead
// by compileOperators), else from the Device's cache.
Program buildProgram(Device::Impl& device, const std::shared_ptr<Device>& owner,
                     std::vector<detail::Dispatch> dispatches, const Pipelines& ready) {
  Program program;
  program.dispatches = std::move(dispatches);
  std::vector<uint8_t> params;
  std::vector<uint64_t> offsets;
  for (const auto& d : program.dispatches) {
    offsets.push_back(params.size());
    params.insert(params.end(), d.params.begin(), d.params.end());
    params.resize((params.size() + 255) & ~size_t(255));
  }
  if (!params.empty()) {
    program.params = allocateBuffer(owner, params.size(), detail::BufferUse::Device);
    detail::Access::wrap(program.params).upload(params.data(), params.size());
  }
  for (size_t i = 0; i < program.dispatches.size(); ++i) {
    const auto& d = program.dispatches[i];
    std::shared_ptr<const detail::Pipeline> pipeline;
    if (!d.isTransfer()) {
      const auto found = ready.find({d.kernel, d.specialization});
      pipeline = found != ready.end() && found->second ? found->second : device.pipeline(d.kernel, d.specialization);
    }
    program.pipelineOwners.push_back(pipeline);
    program.pipelines.push_back(pipeline ? pipeline->handle : VK_NULL_HANDLE);
    program.paramsAddress.push_back(d.params.empty() ? 0 : program.params->address + offsets[i]);
  }
  return program;
}

bool hasTransfers(const std::vector<detail::Dispatch>& dispatches) {
  return std::any_of(dispatches.begin(), dispatches.end(), [](const detail::Dispatch& d) { return d.isTransfer(); });
}

// An operator planned, before anything is created on the device: its
// resources' sizes, its owned inputs and the dispatches of its programs.
struct PlannedOperator {
  std::shared_ptr<CompiledOperator::Impl> compiled;
  std::vector<detail::Dispatch> executed;
  std::optional<std::vector<detail::Dispatch>> kernelsOnly;
};

PlannedOperator planOperator(Device& owner, const Device::Impl& device, const Operator& op,
                             const CompileOptions& options) {
  if (!detail::Access::hasPlan(op))
    throw Error(ErrorCode::InvalidArgument, "Device", "compileOperator", "the operator is empty");
  const OperatorPlan& plan = detail::Access::plan(op);
  detail::checkCompileOptions(plan.name, options);
  PlannedOperator planned;
  auto compiled = planned.compiled = std::make_shared<CompiledOperator::Impl>();
  compiled->device = owner.shared_from_this();
  compiled->op = op;
  std::vector<detail::Dispatch>& executed = planned.executed = plan.plan(device.info, options, device.planDefaults);
  // Where Device::execute takes transfer commands, record() takes the
  // kernel plan, whose commands follow the binding table when they run.
  std::optional<std::vector<detail::Dispatch>>& kernelsOnly = planned.kernelsOnly;
  if (hasTransfers(executed)) {
    CompileOptions kernelOptions = options;
    kernelOptions.copyPath = CopyPath::Kernel;
    kernelsOnly = plan.plan(device.info, kernelOptions, device.planDefaults);
    if (hasTransfers(*kernelsOnly))
      throw Error(ErrorCode::Internal, plan.name, "copyPath", "the kernel copy path planned transfer commands");
  }
  std::vector<detail::Dispatch>& recordable = kernelsOnly ? *kernelsOnly : executed;
  // The temporary and persistent resources (BindingProperties).
  uint64_t scratchBytes = 0, packedBytes = 0;
  for (const auto* dispatches : {&executed, &recordable})
    for (const auto& d : *dispatches) {
      scratchBytes = std::max(scratchBytes, d.scratchBytes);
      packedBytes = std::max(packedBytes, d.persistentBytes);
      compiled->tableCounterBytes = std::max(compiled->tableCounterBytes, d.tableCounterBytes);
    }
  compiled->scratchBytes = detail::Checked(scratchBytes).roundUp(4).get(plan.name, "temporary resource", "its size");
  const size_t tensorSlots = plan.inputs.size() + plan.outputs.size();
  // Each owned input that no initializer dispatch packs is copied whole by
  // one (a kernel, reading the input through the initializer's addresses).
  detail::Checked persistent = packedBytes;
  std::vector<detail::Dispatch> ownedCopies;
  for (uint32_t i = 0; i < plan.inputs.size(); ++i) {
    const auto& tensor = plan.inputs[i].tensor;
    if (!tensor || !tensor->owned) continue;
    CompiledOperator::Impl::OwnedInput owned{i, 0, true};
    for (const auto& d : recordable)
      if (d.initializer && d.packsOwnedSlot == i) owned.copied = false;
    if (owned.copied) {
      persistent = persistent.roundUp(DML_PERSISTENT_BUFFER_ALIGNMENT);
      owned.offset = persistent.get(plan.name, "persistent resource", "its size");
      persistent += tensor->totalBytes;
      detail::Dispatch copy =
          detail::planOwnedCopy(i, detail::persistentSlot(tensorSlots), owned.offset, *tensor, device.planDefaults);
      copy.initializer = true;
      ownedCopies.push_back(std::move(copy));
    }
    compiled->owned.push_back(owned);
  }
  compiled->persistentBytes = persistent.roundUp(4).get(plan.name, "persistent resource", "its size");
  recordable.insert(recordable.end(), ownedCopies.begin(), ownedCopies.end());
  // Scratch that must start zeroed: a fill of all of it opens the program.
  auto zeroScratchFirst = [&](std::vector<detail::Dispatch>& dispatches) {
    if (std::any_of(dispatches.begin(), dispatches.end(),
                    [](const detail::Dispatch& d) { return d.zeroScratch && !d.initializer; }))
      dispatches.insert(dispatches.begin(), detail::planFill(detail::temporarySlot(tensorSlots), 0,
                                                             compiled->scratchBytes, 0, device.info));
  };
  zeroScratchFirst(executed);
  if (kernelsOnly) zeroScratchFirst(*kernelsOnly);
  checkLoopBudget(plan, executed);
  if (kernelsOnly) checkLoopBudget(plan, *kernelsOnly);
  return planned;
}

// The planned operator with its programs' pipelines and parameter blocks.
std::shared_ptr<CompiledOperator::Impl> buildOperator(Device::Impl& device, PlannedOperator planned,
                                                      const Pipelines& ready) {
  auto& compiled = *planned.compiled;
  compiled.executed = buildProgram(device, compiled.device, std::move(planned.executed), ready);
  if (planned.kernelsOnly)
    compiled.kernelsOnly = buildProgram(device, compiled.device, std::move(*planned.kernelsOnly), ready);
  return planned.compiled;
}

// Runs work(i) for each i < count on up to `threads` threads (this one
// among them), each taking the next i as it finishes one.
template <typename Work>
void sideBySide(size_t count, uint32_t threads, const Work& work) {
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i = next++; i < count; i = next++) work(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(std::min<size_t>(threads, count));  // before any thread starts: its failure unwinds nothing
  try {
    for (size_t t = 1; t < std::min<size_t>(threads, count); ++t) pool.emplace_back(loop);
  } catch (...) {
    // A thread not started (std::system_error, or its state's allocation):
    // this one and those started take all of the work.
  }
  loop();
  for (auto& thread : pool) thread.join();
}
}  // namespace

CompiledOperator Device::compileOperator(const Operator& op, const CompileOptions& options) try {
  return CompiledOperator(buildOperator(*impl_, planOperator(*this, *impl_, op, options), {}));
} catch (...) {
  detail::rethrowAsError("Device", "compileOperator");
}

std::vector<CompiledOperator> Device::compileOperators(const std::vector<Operator>& ops, const CompileOptions& options,
                                                       uint32_t threads) try {
  // Here, not when a worker uploads: it would wait for the recorder's lock.
  impl_->refuseSubmitWhileRecording();
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const size_t count = ops.size();
  std::vector<std::optional<PlannedOperator>> planned(count);
  std::vector<std::exception_ptr> errors(count);
  for (size_t i = 0; i < count; ++i) try {
      planned[i] = planOperator(*this, *impl_, ops[i], options);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  // Every distinct pipeline once, each on the next free thread, the
  // cooperative-matrix ones (hundreds of ms each) first: one operator's
  // pipelines compile side by side, and no thread starts a long one last.
  Pipelines ready;
  for (const auto& p : planned)
    if (p)
      for (const auto* program : {&p->executed, p->kernelsOnly ? &*p->kernelsOnly : nullptr})
        if (program)
          for (const auto& d : *program)
            if (!d.isTransfer()) ready.emplace(PipelineKey(d.kernel, d.specialization), nullptr);
  std::vector<Pipelines::iterator> order;
  for (auto it = ready.begin(); it != ready.end(); ++it) order.push_back(it);
  std::stable_partition(order.begin(), order.end(),
                        [](Pipelines::iterator it) { return detail::warpKernel(it->first.first); });
  sideBySide(order.size(), threads, [&](size_t i) {
    try {
      order[i]->second = impl_->pipeline(order[i]->first.first, order[i]->first.second);
    } catch (...) {
      // Left null: buildOperator asks again, and reports the failure.
    }
  });
  std::vector<CompiledOperator> compiled(count);
  sideBySide(count, threads, [&](size_t i) {
    if (!planned[i]) return;
    try {
      compiled[i] = CompiledOperator(buildOperator(*impl_, std::move(*planned[i]), ready));
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  return compiled;
} catch (...) {
  detail::rethrowAsError("Device", "compileOperators");
}

const Operator& CompiledOperator::op() const {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "op", "the compiled operator is empty");
  return impl_->op;
}
std::vector<std::string> CompiledOperator::kernelNames() const try {
  if (!impl_) return {};
  std::vector<std::string> names;
  for (const auto& d : impl_->executed.dispatches)
    if (!d.initializer)
      names.push_back(!d.isTransfer()       ? detail::kernelName(d.kernel)
                      : d.fills.empty()     ? "vkCmdCopyBuffer"
                      : d.transfers.empty() ? "vkCmdFillBuffer"
                                            : "vkCmdCopyBuffer+vkCmdFillBuffer");
  return names;
} catch (...) {
  detail::rethrowAsError("CompiledOperator", "kernelNames");
}

BindingTable CompiledOperator::createBindingTable() const try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "op", "the compiled operator is empty");
  auto t = std::make_shared<BindingTable::Impl>();
  detail::pointTable(*t, impl_);
  return BindingTable(t);
} catch (...) {
  detail::rethrowAsError("CompiledOperator", "createBindingTable");
}

namespace {
// Records the execution dispatches of `program` (a program of `op`) into
// `cmd` with table `t`. `callersCmd` is `cmd` where the caller submits it,
// null where it is submitted at once (Device::execute):
// then transfer commands may name the buffers bound now, and dispatches that
// would find their two slots aliased are left out.
void recordExecution(const CompiledOperator::Impl& op, const Program& program, VkCommandBuffer cmd,
                     VkCommandBuffer callersCmd, BindingTable::Impl* t) {
  const OperatorPlan& plan = detail::Access::plan(op.op);
  if (!t || t->op.get() != &op)
    detail::throwInvalid(plan.name, "bindings",
                         "the binding table was created by (or reset to) another compiled operator");
  auto owned = [&](size_t slot) {
    return slot < plan.inputs.size() && plan.inputs[slot].tensor && plan.inputs[slot].tensor->owned;
  };
  for (size_t i = 0; i < t->slots.size(); ++i) {
    bool input = i < plan.inputs.size();
    const auto& slot = input ? plan.inputs[i] : plan.outputs[i - plan.inputs.size()];
    if (!t->slots[i] && !owned(i))
      detail::throwInvalid(
          plan.name, slot.name,
          input ? "inputs are not bound (call bindInputs)" : "outputs are not bound (call bindOutputs)");
    if (t->slots[i] && slot.tensor && !t->slots[i]->address && !owned(i))
      detail::throwInvalid(plan.name, slot.name, "is required but bound to no buffer");
  }
  if (op.persistentBytes && !t->persistent && !detail::ownPersistentInitialized(*t, callersCmd))
    detail::throwInvalid(
        plan.name, "persistent resource",
        t->ownPersistent && t->initializerEpoch == t->epoch
            ? "the table's own is not initialized: its initializer was recorded (recordInitializer) but has not "
              "run; submit it and wait for it first, or record this execution into the same command buffer after it"
            : "the table's own is not initialized: its DML_TENSOR_FLAG_OWNED_BY_DML inputs are read from it (call "
              "Device::initialize or CompiledOperator::recordInitializer with this table first, or bind an "
              "initialized one with bindPersistent)");
  auto& d = detail::Access::impl(*op.device);
  const std::optional<BoundRange> temporary = detail::temporaryRange(*t);
  const std::optional<BoundRange> persistent = detail::persistentRange(*t);
  const bool submittedNow = callersCmd == VK_NULL_HANDLE;
  // What a transfer reads from a slot: an owned input's copy in the
  // persistent resource, else the bound range.
  auto source = [&](uint32_t slot) {
    for (const auto& o : op.owned)
      if (o.slot == slot && o.copied)
        return BoundRange{persistent->buffer, persistent->offset + o.offset, persistent->address + o.offset,
                          plan.inputs[slot].tensor->totalBytes};
    return *t->slots[slot];
  };
  // The temporary resource, or the table's counters, may still be in use
  // by an earlier execution: the first dispatch waits for its compute work.
  bool first = !temporary && op.tableCounterBytes == 0;
  // The stage of the last command recorded: the caller orders record()
  // against its work as compute work, so a transfer first waits for compute
  // writes, and a transfer last is made visible to compute.
  VkPipelineStageFlags last = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  auto writes = [](VkPipelineStageFlags stage) {
    return stage == VK_PIPELINE_STAGE_TRANSFER_BIT ? VK_ACCESS_TRANSFER_WRITE_BIT : VK_ACCESS_SHADER_WRITE_BIT;
  };
  auto accesses = [](VkPipelineStageFlags stage) {
    return stage == VK_PIPELINE_STAGE_TRANSFER_BIT ? VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT
                                                   : VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  };
  std::vector<VkBufferCopy> regions;
  const uint64_t* addresses = t->addresses.data();
  for (size_t i = 0; i < program.dispatches.size(); ++i) {
    const auto& dispatch = program.dispatches[i];
    if (dispatch.initializer) continue;
    if (dispatch.isTransfer() && !submittedNow)
      throw Error(ErrorCode::Internal, plan.name, "record", "a transfer command in a caller's command buffer");
    if (submittedNow && dispatch.skipWhenSlotsAlias &&
        addresses[dispatch.skipWhenSlotsAlias->first] == addresses[dispatch.skipWhenSlotsAlias->second])
      continue;
    const VkPipelineStageFlags stage =
        dispatch.isTransfer() ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    if (!first || stage != last) detail::barrier(d, cmd, last, writes(last), stage, accesses(stage));
    first = false;
    last = stage;
    for (const auto& transfer : dispatch.transfers) {
      const BoundRange from = source(transfer.sourceSlot);
      const BoundRange& to = *t->slots[transfer.destinationSlot];
      regions = transfer.regions;
      for (VkBufferCopy& region : regions) {
        region.srcOffset += from.offset;
        region.dstOffset += to.offset;
      }
      // In commands of at most kRegionsPerCopy regions: the validation layer
      // checks a command's regions for overlap pairwise, a minute for 65536.
      for (size_t at = 0; at < regions.size(); at += kRegionsPerCopy)
        d.vk.vkCmdCopyBuffer(cmd, from.buffer->buffer, to.buffer->buffer,
                             static_cast<uint32_t>(std::min(kRegionsPerCopy, regions.size() - at)),
                             regions.data() + at);
    }
    for (const auto& fill : dispatch.fills) {
      const BoundRange& to = *t->slots[fill.slot];
      d.vk.vkCmdFillBuffer(cmd, to.buffer->buffer, to.offset + fill.offset, fill.size, fill.data);
    }
    if (dispatch.isTransfer()) continue;
    uint64_t push[2] = {program.paramsAddress[i], t->table->address};
    d.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, program.pipelines[i]);
    d.vk.vkCmdPushConstants(cmd, d.pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    d.vk.vkCmdDispatch(cmd, dispatch.groups[0], dispatch.groups[1], dispatch.groups[2]);
  }
  if (last == VK_PIPELINE_STAGE_TRANSFER_BIT)
    detail::barrier(d, cmd, last, writes(last), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    accesses(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
}
}  // namespace

void CompiledOperator::record(VkCommandBuffer cmd, const BindingTable& bindings) const try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "record", "the compiled operator is empty");
  if (!cmd) throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "record", "the command buffer is null");
  recordExecution(*impl_, impl_->recordable(), cmd, cmd, bindings.impl_.get());
} catch (...) {
  detail::rethrowAsError("CompiledOperator", "record");
}

void Device::execute(const CompiledOperator& op, const BindingTable& bindings) try {
  if (!op.impl_) throw Error(ErrorCode::InvalidArgument, "Device", "execute", "the compiled operator is empty");
  if (op.impl_->device.get() != this)
    throw Error(ErrorCode::InvalidArgument, "Device", "execute", "the operator was compiled for another device");
  impl_->submitAndWait([&](VkCommandBuffer cmd) {
    recordExecution(*op.impl_, op.impl_->executed, cmd, VK_NULL_HANDLE, bindings.impl_.get());
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
    impl_->vk.vkCmdPipelineBarrier(
        cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
        &barrier, 0, nullptr, 0, nullptr);
  });
} catch (...) {
  detail::rethrowAsError("Device", "execute");
}

}  // namespace vkdml
