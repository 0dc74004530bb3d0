// What every operator shares: errors, tensor rules, compiling a plan into
// pipelines, binding tables, and recording dispatches.
#include <algorithm>

#include "checked.hpp"
#include "device_impl.hpp"
#include "guard.hpp"

namespace vkdml {

Error::Error(ErrorCode code, std::string op, std::string field, const std::string& message)
    : std::runtime_error(message), code_(code), op_(std::move(op)), field_(std::move(field)) {}

namespace detail {

void throwInvalid(const char* op, const std::string& field, const std::string& rule) {
  throw Error(ErrorCode::InvalidArgument, op, field, concat(op, ": ", field, ": ", rule));
}

void throwUnsupported(const char* op, const std::string& field, const std::string& rule) {
  throw Error(ErrorCode::Unsupported, op, field, concat(op, ": ", field, ": ", rule));
}

void throwVulkan(VkResult result, const char* call) {
  ErrorCode code = ErrorCode::VulkanError;
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) code = ErrorCode::OutOfMemory;
  if (result == VK_ERROR_DEVICE_LOST) code = ErrorCode::DeviceLost;
  throw Error(code, "Vulkan", call, concat(call, " failed with VkResult ", static_cast<int>(result)));
}

const char* dataTypeName(uint32_t type) {
  switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32:
      return "FLOAT32";
    case DML_TENSOR_DATA_TYPE_FLOAT16:
      return "FLOAT16";
    case DML_TENSOR_DATA_TYPE_UINT32:
      return "UINT32";
    case DML_TENSOR_DATA_TYPE_UINT16:
      return "UINT16";
    case DML_TENSOR_DATA_TYPE_UINT8:
      return "UINT8";
    case DML_TENSOR_DATA_TYPE_INT32:
      return "INT32";
    case DML_TENSOR_DATA_TYPE_INT16:
      return "INT16";
    case DML_TENSOR_DATA_TYPE_INT8:
      return "INT8";
    case DML_TENSOR_DATA_TYPE_FLOAT64:
      return "FLOAT64";
    case DML_TENSOR_DATA_TYPE_UINT64:
      return "UINT64";
    case DML_TENSOR_DATA_TYPE_INT64:
      return "INT64";
    default:
      return "UNKNOWN";
  }
}

bool TensorInfo::sameLayout(const TensorInfo& o) const {
  if (rank != o.rank || elementSize != o.elementSize) return false;
  for (uint32_t i = 0; i < rank; ++i)
    if (sizes[i] != o.sizes[i] || (sizes[i] > 1 && strides[i] != o.strides[i])) return false;
  return true;
}

std::string TensorInfo::shape() const {
  return list(sizes.data(), rank);
}

namespace {
// An output must not write one element twice. Exact detection is a
// subset-sum problem, so the check is the usual sufficient one: sorted by
// stride, each dimension's stride exceeds the span of all smaller ones.
// It rejects the rare interleaved layouts that do not overlap either.
bool mayOverlap(const TensorInfo& t) {
  std::vector<std::pair<uint64_t, uint32_t>> dims;
  for (uint32_t i = 0; i < t.rank; ++i)
    if (t.sizes[i] > 1) dims.emplace_back(t.strides[i], t.sizes[i]);
  std::sort(dims.begin(), dims.end());
  uint64_t span = 0;  // largest offset reachable with the smaller dimensions
  for (auto& [stride, size] : dims) {
    if (stride <= span) return true;
    span += stride * (size - 1);
  }
  return false;
}
}  // namespace

std::optional<TensorInfo> readTensor(const char* op, const std::string& field, const DML_TENSOR_DESC* desc,
                                     TensorRole role, bool optional) {
  if (!desc) {
    if (optional) return std::nullopt;
    throwInvalid(op, field, "is required but null");
  }
  if (rawBits(desc->Type) != DML_TENSOR_TYPE_BUFFER)
    throwInvalid(op, field + ".Type", concat("must be DML_TENSOR_TYPE_BUFFER (1), not ", rawBits(desc->Type)));
  const auto* b = static_cast<const DML_BUFFER_TENSOR_DESC*>(desc->Desc);
  if (!b) throwInvalid(op, field + ".Desc", "is null");
  TensorInfo t;
  const uint32_t dataType = rawBits(b->DataType);
  if (dataType == DML_TENSOR_DATA_TYPE_UNKNOWN || dataType > DML_TENSOR_DATA_TYPE_INT64)
    throwInvalid(op, field + ".DataType", concat("is not a valid data type (", dataType, ")"));
  t.dataType = static_cast<DML_TENSOR_DATA_TYPE>(dataType);
  t.elementSize = DMLElementSizeInBytes(t.dataType);
  if (b->DimensionCount < 1 || b->DimensionCount > kMaxDims)
    throwInvalid(op, field + ".DimensionCount", concat("must be 1..8, not ", b->DimensionCount));
  if (!b->Sizes) throwInvalid(op, field + ".Sizes", "is null");
  t.rank = b->DimensionCount;
  t.packed = b->Strides == nullptr;
  t.elementCount = 1;
  for (uint32_t i = 0; i < t.rank; ++i) {
    if (b->Sizes[i] < 1)
      throwInvalid(op, concat(field, ".Sizes[", i, "]"),
                   concat("must be >= 1, not 0 (Sizes ", list(b->Sizes, t.rank), ")"));
    t.sizes[i] = b->Sizes[i];
    t.elementCount *= b->Sizes[i];
    if (t.elementCount > kMaxElements)
      throwInvalid(op, field + ".Sizes",
                   concat("holds more than 2^32 - 1 elements (Sizes ", list(b->Sizes, t.rank), ")"));
  }
  uint64_t stride = 1;
  for (uint32_t i = t.rank; i-- > 0;) {
    t.strides[i] = b->Strides ? b->Strides[i] : stride;
    stride *= t.sizes[i];
  }
  // DMLCalcBufferTensorSize computes the same minimum but wraps: strides
  // can make it pass 2^64 bytes.
  Checked footprint = 1;
  for (uint32_t i = 0; i < t.rank; ++i) footprint += Checked(t.sizes[i] - 1) * t.strides[i];
  const std::string layout =
      concat("(Sizes ", t.shape(), b->Strides ? concat(", Strides ", list(b->Strides, t.rank)) : "", ", ",
             dataTypeName(t.dataType), ")");
  t.footprintElements = footprint.get(op, field + ".Strides", "the offset of the last element " + layout);
  const uint64_t minimum =
      (footprint * t.elementSize).roundUp(4).get(op, field + ".Strides", "the size in bytes " + layout);
  if (b->TotalTensorSizeInBytes < minimum)
    throwInvalid(op, field + ".TotalTensorSizeInBytes",
                 concat("must be >= ", minimum, " (the size its Sizes", b->Strides ? " and Strides" : "",
                        " imply, rounded up to 4), not ", b->TotalTensorSizeInBytes));
  t.totalBytes = b->TotalTensorSizeInBytes;
  uint32_t align = b->GuaranteedBaseOffsetAlignment;
  if (align != 0 && ((align & (align - 1)) != 0 || align < t.elementSize))
    throwInvalid(op, field + ".GuaranteedBaseOffsetAlignment",
                 concat("must be 0 or a power of two >= the element size ", t.elementSize, ", not ", align));
  t.offsetAlignment = align ? align : DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
  const uint32_t flags = rawBits(b->Flags);
  if (flags & ~static_cast<unsigned>(DML_TENSOR_FLAG_OWNED_BY_DML))
    throwInvalid(op, field + ".Flags", concat("has unknown bits (", flags, ")"));
  t.owned = (flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0;
  if (role == TensorRole::Output) {
    if (flags & DML_TENSOR_FLAG_OWNED_BY_DML)
      throwInvalid(op, field + ".Flags", "DML_TENSOR_FLAG_OWNED_BY_DML is for inputs only");
    if (mayOverlap(t))
      throwInvalid(op, field + ".Strides",
                   concat("an output's elements must not overlap (Sizes ", t.shape(), ", Strides ",
                          list(t.strides.data(), t.rank), ")"));
  }
  return t;
}

void requireRank(const char* op, const std::string& field, const TensorInfo& t, uint32_t minRank, uint32_t maxRank) {
  if (t.rank < minRank || t.rank > maxRank)
    throwInvalid(op, field + ".DimensionCount", concat("must be ", minRank, "..", maxRank, ", not ", t.rank));
}

void requireSameType(const char* op, const std::string& field, const TensorInfo& t, const std::string& otherField,
                     const TensorInfo& other) {
  if (t.dataType != other.dataType)
    throwInvalid(op, field + ".DataType",
                 concat("must match ", otherField, ".DataType (", dataTypeName(t.dataType), " vs ",
                        dataTypeName(other.dataType), ")"));
}

void requireType(const char* op, const std::string& field, const TensorInfo& t,
                 std::initializer_list<DML_TENSOR_DATA_TYPE> allowed) {
  if (std::find(allowed.begin(), allowed.end(), t.dataType) != allowed.end()) return;
  std::string names;
  for (auto a : allowed) names += concat(names.empty() ? "" : ", ", dataTypeName(a));
  throwInvalid(op, field + ".DataType", concat("must be one of ", names, ", not ", dataTypeName(t.dataType)));
}

uint32_t gridGroups(uint64_t items, uint32_t groupSize, const DeviceInfo& device) {
  uint64_t groups = (items + groupSize - 1) / groupSize;
  uint64_t limit =
      std::min<uint64_t>(device.maxComputeWorkGroupCountX ? device.maxComputeWorkGroupCountX : 65535, 65535);
  return static_cast<uint32_t>(std::max<uint64_t>(1, std::min(groups, limit)));
}

std::array<uint32_t, 3> gridGroups2D(uint64_t items, uint64_t perGroup, const DeviceInfo& device) {
  const uint32_t x = gridGroups(items, 1, device);
  const uint64_t wanted = (items + std::max<uint64_t>(perGroup, 1) - 1) / std::max<uint64_t>(perGroup, 1);
  const uint64_t y = std::clamp<uint64_t>((wanted + x - 1) / x, 1, 65535);
  return {x, static_cast<uint32_t>(y), 1};
}

uint64_t itemsPerGroup(uint64_t items, const std::array<uint32_t, 3>& groups) {
  const uint64_t count = uint64_t(groups[0]) * groups[1] * groups[2];
  return (items + count - 1) / count;
}

namespace {
uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}
// The budgets of workgroups the grids below start from, and the most they
// grow to where an invocation's loops need it.
constexpr uint64_t kGridGroups = 4096;  // 1 M invocations: several times what an H200 holds at once
constexpr uint64_t kMaxGridGroups = uint64_t(65535) * 65535;
}  // namespace

RowGrid rowGrid(uint64_t rowLength, uint64_t rows, uint64_t rowPasses, uint64_t columnPasses) {
  constexpr uint32_t kGroupSize = 256;
  RowGrid g;
  while (g.groupSize[0] < kGroupSize && g.groupSize[0] < rowLength) g.groupSize[0] *= 2;
  g.groupSize[1] = kGroupSize / g.groupSize[0];
  // At most kGridGroups groups; the grid-stride loops do the rest, unless
  // that makes an invocation's loops too long.
  for (uint64_t budget = kGridGroups;; budget *= 2) {
    const uint64_t groupsY = std::clamp<uint64_t>(ceilDiv(rows, g.groupSize[1]), 1, std::min<uint64_t>(budget, 65535));
    const uint64_t groupsX =
        std::clamp<uint64_t>(ceilDiv(rowLength, g.groupSize[0]), 1, std::min<uint64_t>(budget / groupsY, 65535));
    g.groups = {static_cast<uint32_t>(groupsX), static_cast<uint32_t>(groupsY), 1};
    const uint64_t myRows = ceilDiv(rows, groupsY * g.groupSize[1]);
    const uint64_t myColumns = ceilDiv(rowLength, groupsX * g.groupSize[0]);
    g.loopPasses = loopPasses(myRows, rowPasses + loopPasses(myColumns, columnPasses));
    if (g.loopPasses <= kLoopBudget || budget >= kMaxGridGroups) return g;
  }
}

LaneGrid laneGrid(uint64_t rowLength, uint64_t rows, uint64_t rowPasses) {
  constexpr uint64_t kGroupSize = LaneGrid::kGroupSize;
  rows = std::max<uint64_t>(rows, 1);
  uint64_t cover = 1;
  while (cover < rowLength) cover <<= 1;
  // kGridGroups groups, doubled (powers of two, so that whole rows' worth of
  // lanes divide the grid) while an invocation's loops are too long.
  for (uint64_t maxGroups = kGridGroups;; maxGroups *= 2) {
    const uint64_t budget = maxGroups * kGroupSize;
    uint64_t share = 1;
    while (share * 2 * rows <= budget) share <<= 1;
    // At least 32 lanes where rows are that long, so a warp's accesses stay contiguous.
    const uint64_t lanesPerRow = std::max(std::min<uint64_t>(cover, 32), std::min(cover, share));
    LaneGrid g;
    while ((uint64_t(1) << g.columnShift) < lanesPerRow) ++g.columnShift;
    // Whole rows' worth of lanes when a row spans several groups.
    const uint64_t groupsPerRow = std::max<uint64_t>(1, lanesPerRow / kGroupSize);
    uint64_t groups = std::clamp<uint64_t>(ceilDiv(rows * lanesPerRow, kGroupSize), 1, maxGroups);
    groups = ceilDiv(groups, groupsPerRow) * groupsPerRow;
    g.groups = static_cast<uint32_t>(groups);
    g.rowStride = static_cast<uint32_t>(groups * kGroupSize / lanesPerRow);
    g.loopPasses = loopPasses(ceilDiv(rows, g.rowStride), rowPasses + loopPasses(ceilDiv(rowLength, lanesPerRow)));
    // 32768 groups: the largest power of two within 65535.
    if (g.loopPasses <= kLoopBudget || maxGroups >= 32768) return g;
  }
}

namespace {
// A row of the operator table (operators.inc), its create function taking
// the descriptor as DML_OPERATOR_DESC::Desc holds it.
struct OperatorRow {
  uint32_t type;
  const char* name;
  uint32_t inputs, outputs;
  std::shared_ptr<OperatorPlan> (*create)(const void* desc);
};
template <typename Desc, std::shared_ptr<OperatorPlan> (*Create)(const Desc&)>
std::shared_ptr<OperatorPlan> createFrom(const void* desc) {
  return Create(*static_cast<const Desc*>(desc));
}
constexpr OperatorRow kOperators[] = {
#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create) \
  {type, name, inputs, outputs, createFrom<Desc, create>},
#include "ops/operators.inc"
#undef VKDML_OPERATOR
};

// "JOIN, SLICE1, ...": the table's operators, for the error on any other type.
std::string implementedNames() {
  std::string names;
  for (const OperatorRow& row : kOperators)
    names += concat(names.empty() ? "" : ", ", std::string(row.name).substr(std::strlen("DML_")));
  return names;
}
}  // namespace

std::shared_ptr<OperatorPlan> createPlan(const DML_OPERATOR_DESC& desc) {
  if (!desc.Desc)
    throw Error(ErrorCode::InvalidArgument, "DML_OPERATOR_DESC", "Desc", "DML_OPERATOR_DESC: Desc: is null");
  const uint32_t type = rawBits(desc.Type);
  for (const OperatorRow& row : kOperators) {
    if (row.type != type) continue;
    std::shared_ptr<OperatorPlan> plan = row.create(desc.Desc);
    // The row and the operator's file agree on what the operator is.
    if (plan->type != desc.Type || std::strcmp(plan->name, row.name) != 0 || plan->outputs.size() != row.outputs ||
        (row.inputs && plan->inputs.size() != row.inputs))
      throw Error(ErrorCode::Internal, row.name, "operator table",
                  concat(row.name, ": operator table: its plan (", plan->name, ", ", plan->inputs.size(), " inputs, ",
                         plan->outputs.size(), " outputs) does not match its row in operators.inc"));
    return plan;
  }
  throw Error(ErrorCode::Unsupported, "DML_OPERATOR_DESC", "Type",
              concat("DML_OPERATOR_DESC: Type: operator type ", type, " is not supported (vkdml implements ",
                     implementedNames(), ")"));
}

}  // namespace detail

std::optional<Error> validate(const DML_OPERATOR_DESC& desc) try {
  try {
    detail::createPlan(desc);
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
} catch (...) {
  detail::rethrowAsError("vkdml", "validate");
}

DML_OPERATOR_TYPE Operator::type() const {
  return plan_ ? plan_->type : DML_OPERATOR_INVALID;
}
const char* Operator::name() const {
  return plan_ ? plan_->name : "";
}
uint32_t Operator::inputCount() const {
  return plan_ ? static_cast<uint32_t>(plan_->inputs.size()) : 0;
}
uint32_t Operator::outputCount() const {
  return plan_ ? static_cast<uint32_t>(plan_->outputs.size()) : 0;
}

Operator Device::createOperator(const DML_OPERATOR_DESC& desc) try {
  return Operator(detail::createPlan(desc));
} catch (...) {
  detail::rethrowAsError("Device", "createOperator");
}

const char* toString(ConvolutionPath path) {
  switch (path) {
    case ConvolutionPath::Auto:
      return "auto";
    case ConvolutionPath::Portable:
      return "portable";
    case ConvolutionPath::DotProduct:
      return "dot";
    case ConvolutionPath::CooperativeMatrix:
      return "coopmat";
    case ConvolutionPath::CooperativeMatrixEmulated:
      return "coopmat-emulated";
  }
  return "?";
}

CompiledOperator Device::compileOperator(const Operator& op, const CompileOptions& options) try {
  if (!op.plan_) throw Error(ErrorCode::InvalidArgument, "Device", "compileOperator", "the operator is empty");
  const OperatorPlan& plan = *op.plan_;
  auto compiled = std::make_shared<CompiledOperator::Impl>();
  compiled->device = shared_from_this();
  compiled->op = op;
  compiled->dispatches = plan.plan(impl_->info, options);
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
    compiled->pipelineOwners.push_back(impl_->pipeline(d.kernel, d.specialization));
    compiled->pipelines.push_back(compiled->pipelineOwners.back()->handle);
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
    if (!d.initializer) names.push_back(detail::kernelName(d.kernel));
  return names;
} catch (...) {
  detail::rethrowAsError("CompiledOperator", "kernelNames");
}

BindingTable CompiledOperator::createBindingTable() const try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "op", "the compiled operator is empty");
  auto t = std::make_shared<BindingTable::Impl>();
  t->op = impl_;
  const OperatorPlan& plan = impl_->op.plan();
  t->slots.assign(plan.inputs.size() + plan.outputs.size(), std::nullopt);
  // The temporary and persistent resources are allocated on first use,
  // where the caller binds none (detail::temporaryRange, persistentRange).
  const size_t bytes = 2 * t->slotCount() * 8;
  t->table = allocateBuffer(impl_->device, bytes, true);
  std::memset(t->table->mapped, 0, bytes);
  return BindingTable(t);
} catch (...) {
  detail::rethrowAsError("CompiledOperator", "createBindingTable");
}

namespace {
// Checks each binding of one side (inputs or outputs) against its slot's
// tensor; returns what the slots would hold. Changes nothing.
std::vector<std::optional<BoundRange>> resolve(const BindingTable::Impl& t, const std::vector<detail::Slot>& slots,
                                               const std::vector<BufferBinding>& bindings, const char* what) {
  const char* op = t.op->op.plan().name;
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
  detail::checkOverlaps(t.op->op.plan(), next, t.temporary, t.persistent);
  t.slots = std::move(next);
  detail::publishAddresses(t);
}
}  // namespace

namespace detail {
BoundRange resolveRange(const char* op, const std::string& field, const Device& device, const BufferBinding& b,
                        uint64_t alignment, uint64_t required, const char* requiredName) {
  const Buffer::Impl* buffer = b.buffer->impl();
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
  return {b.buffer->sharedImpl(), b.offset, buffer->address + b.offset, required};
}

// An output may not overlap an input: kernels read inputs while they write
// the output, in no defined order, so any overlap gives wrong answers. The
// one exception is the in-place execution an operator declares
// (OperatorPlan::inPlace): the output bound to exactly its input's range.
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
      std::string allowed = plan.inPlace ? concat("; only ", plan.outputs[plan.inPlace->second - outputsBegin].name,
                                                  " bound to exactly the range of ",
                                                  plan.inputs[plan.inPlace->first].name, " runs in place")
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
  bindSide(*impl_, impl_->op->op.plan().inputs, 0, inputs, "inputs");
} catch (...) {
  detail::rethrowAsError("BindingTable", "bindInputs");
}

void BindingTable::bindOutputs(const std::vector<BufferBinding>& outputs) try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "BindingTable", "bindOutputs", "the binding table is empty");
  const OperatorPlan& plan = impl_->op->op.plan();
  bindSide(*impl_, plan.outputs, plan.inputs.size(), outputs, "outputs");
} catch (...) {
  detail::rethrowAsError("BindingTable", "bindOutputs");
}

void CompiledOperator::record(VkCommandBuffer cmd, const BindingTable& bindings) const try {
  if (!impl_) throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "record", "the compiled operator is empty");
  if (!cmd) throw Error(ErrorCode::InvalidArgument, "CompiledOperator", "record", "the command buffer is null");
  const OperatorPlan& plan = impl_->op.plan();
  BindingTable::Impl* t = bindings.impl_.get();
  if (!t || t->op.get() != impl_.get())
    detail::throwInvalid(plan.name, "bindings", "the binding table was created by another compiled operator");
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
  auto& d = impl_->device->impl();
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
  for (size_t i = 0; i < impl_->dispatches.size(); ++i) {
    const auto& dispatch = impl_->dispatches[i];
    if (dispatch.initializer) continue;
    const uint64_t* addresses = static_cast<const uint64_t*>(t->table->mapped);
    if (dispatch.skipWhenSlotsAlias &&
        addresses[dispatch.skipWhenSlotsAlias->first] == addresses[dispatch.skipWhenSlotsAlias->second])
      continue;
    if (!first)
      detail::barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    first = false;
    uint64_t push[2] = {impl_->paramsAddress[i], t->table->address};
    d.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, impl_->pipelines[i]);
    d.vk.vkCmdPushConstants(cmd, d.pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    d.vk.vkCmdDispatch(cmd, dispatch.groups[0], dispatch.groups[1], dispatch.groups[2]);
  }
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
