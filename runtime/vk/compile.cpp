// Compiling a plan into pipelines and a parameter buffer, and recording its
// dispatches.
#include <algorithm>

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
}  // namespace

CompiledOperator Device::compileOperator(const Operator& op, const CompileOptions& options) try {
  if (!op.plan_) throw Error(ErrorCode::InvalidArgument, "Device", "compileOperator", "the operator is empty");
  const OperatorPlan& plan = *op.plan_;
  detail::checkCompileOptions(plan.name, options);
  auto compiled = std::make_shared<CompiledOperator::Impl>();
  compiled->device = shared_from_this();
  compiled->op = op;
  compiled->dispatches = plan.plan(impl_->info, options, impl_->planDefaults);
  for (const auto& d : compiled->dispatches)
    if (d.loopPasses > detail::kLoopBudget)
      throw Error(ErrorCode::Internal, plan.name, detail::kernelName(d.kernel),
                  detail::concat(plan.name, ": ", detail::kernelName(d.kernel), ": an invocation could make ",
                                 d.loopPasses, " loop passes, more than the budget of ", detail::kLoopBudget,
                                 " (kLoopBudget): the planner must split this work"));
  // The temporary and persistent resources (BindingProperties).
  uint64_t scratchBytes = 0, packedBytes = 0;
  for (const auto& d : compiled->dispatches) {
    scratchBytes = std::max(scratchBytes, d.scratchBytes);
    packedBytes = std::max(packedBytes, d.persistentBytes);
    compiled->zeroScratch = compiled->zeroScratch || d.zeroScratch;
  }
  compiled->scratchBytes = detail::Checked(scratchBytes).roundUp(4).get(plan.name, "temporary resource", "its size");
  detail::Checked persistent = packedBytes;
  for (uint32_t i = 0; i < plan.inputs.size(); ++i) {
    const auto& tensor = plan.inputs[i].tensor;
    if (!tensor || !tensor->owned) continue;
    CompiledOperator::Impl::OwnedInput owned{i, 0, true};
    for (const auto& d : compiled->dispatches)
      if (d.initializer && d.packsOwnedSlot == i) owned.copied = false;
    if (owned.copied) {
      persistent = persistent.roundUp(DML_PERSISTENT_BUFFER_ALIGNMENT);
      owned.offset = persistent.get(plan.name, "persistent resource", "its size");
      persistent += tensor->totalBytes;
    }
    compiled->owned.push_back(owned);
  }
  compiled->persistentBytes = persistent.roundUp(4).get(plan.name, "persistent resource", "its size");

  // All parameter blocks in one device-local buffer, each 256-byte aligned.
  std::vector<uint8_t> params;
  std::vector<uint64_t> offsets;
  for (const auto& d : compiled->dispatches) {
    offsets.push_back(params.size());
    params.insert(params.end(), d.params.begin(), d.params.end());
    params.resize((params.size() + 255) & ~size_t(255));
  }
  if (!params.empty()) {
    compiled->params = allocateBuffer(compiled->device, params.size(), false);
    Buffer(compiled->params).upload(params.data(), params.size());
  }
  for (size_t i = 0; i < compiled->dispatches.size(); ++i) {
    const auto& d = compiled->dispatches[i];
    compiled->pipelineOwners.push_back(d.isTransfer() ? nullptr : impl_->pipeline(d.kernel, d.specialization));
    compiled->pipelines.push_back(d.isTransfer() ? VK_NULL_HANDLE : compiled->pipelineOwners.back()->handle);
    compiled->paramsAddress.push_back(d.params.empty() ? 0 : compiled->params->address + offsets[i]);
  }
  return CompiledOperator(compiled);
} catch (...) {
  detail::rethrowAsError("Device", "compileOperator");
}

const Operator& CompiledOperator::op() const {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "op", "the compiled operator is empty");
  return impl_->op;
}
std::vector<std::string> CompiledOperator::kernelNames() const try {
  if (!impl_) return {};
  std::vector<std::string> names;
  for (const auto& d : impl_->dispatches)
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

void CompiledOperator::record(VkCommandBuffer cmd, const BindingTable& bindings) const try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "record", "the compiled operator is empty");
  if (!cmd) throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "record", "the command buffer is null");
  const OperatorPlan& plan = detail::Access::plan(impl_->op);
  BindingTable::Impl* t = bindings.impl_.get();
  if (!t || t->op.get() != impl_.get())
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
  if (impl_->persistentBytes && !t->persistent && !t->ownPersistentInitialized)
    detail::throwInvalid(plan.name, "persistent resource",
                         "the table's own is not initialized: its DML_TENSOR_FLAG_OWNED_BY_DML inputs are read from "
                         "it (call Device::initialize or CompiledOperator::recordInitializer with this table first, "
                         "or bind an initialized one with bindPersistent)");
  auto& d = detail::Access::impl(*impl_->device);
  const std::optional<BoundRange> temporary = detail::temporaryRange(*t);
  detail::persistentRange(*t);
  // The temporary resource may still be in use by an earlier execution:
  // wait for its compute work (and, where it must start zeroed, fill it).
  bool first = !temporary;
  if (temporary && impl_->zeroScratch) {
    detail::barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_ACCESS_TRANSFER_WRITE_BIT);
    d.vk.vkCmdFillBuffer(cmd, temporary->buffer->buffer, temporary->offset, temporary->bytes, 0);
    detail::barrier(d, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    first = true;
  }
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
  for (size_t i = 0; i < impl_->dispatches.size(); ++i) {
    const auto& dispatch = impl_->dispatches[i];
    if (dispatch.initializer) continue;
    const uint64_t* addresses = static_cast<const uint64_t*>(t->table->mapped);
    if (dispatch.skipWhenSlotsAlias &&
        addresses[dispatch.skipWhenSlotsAlias->first] == addresses[dispatch.skipWhenSlotsAlias->second])
      continue;
    const VkPipelineStageFlags stage =
        dispatch.isTransfer() ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    if (!first || stage != last) detail::barrier(d, cmd, last, writes(last), stage, accesses(stage));
    first = false;
    last = stage;
    for (const auto& transfer : dispatch.transfers) {
      const BoundRange& source = *t->slots[transfer.sourceSlot];
      const BoundRange& destination = *t->slots[transfer.destinationSlot];
      regions = transfer.regions;
      for (VkBufferCopy& region : regions) {
        region.srcOffset += source.offset;
        region.dstOffset += destination.offset;
      }
      // In commands of at most kRegionsPerCopy regions: the validation layer
      // checks a command's regions for overlap pairwise, a minute for 65536.
      for (size_t at = 0; at < regions.size(); at += kRegionsPerCopy)
        d.vk.vkCmdCopyBuffer(cmd, source.buffer->buffer, destination.buffer->buffer,
                             static_cast<uint32_t>(std::min(kRegionsPerCopy, regions.size() - at)),
                             regions.data() + at);
    }
    for (const auto& fill : dispatch.fills) {
      const BoundRange& destination = *t->slots[fill.slot];
      d.vk.vkCmdFillBuffer(cmd, destination.buffer->buffer, destination.offset + fill.offset, fill.size, fill.data);
    }
    if (dispatch.isTransfer()) continue;
    uint64_t push[2] = {impl_->paramsAddress[i], t->table->address};
    d.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, impl_->pipelines[i]);
    d.vk.vkCmdPushConstants(cmd, d.pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    d.vk.vkCmdDispatch(cmd, dispatch.groups[0], dispatch.groups[1], dispatch.groups[2]);
  }
  if (last == VK_PIPELINE_STAGE_TRANSFER_BIT)
    detail::barrier(d, cmd, last, writes(last), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    accesses(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
} catch (...) {
  detail::rethrowAsError("CompiledOperator", "record");
}

void Device::execute(const CompiledOperator& op, const BindingTable& bindings) try {
  if (!op.impl_ || op.impl_->device.get() != this)
    throw Error(ErrorCode::InvalidArgument, "Device", "execute", "the operator was compiled for another device");
  impl_->submitAndWait([&](VkCommandBuffer cmd) {
    op.record(cmd, bindings);
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
