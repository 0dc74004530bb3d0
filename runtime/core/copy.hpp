// Plans dispatches of shaders/copy.comp, the strided copy that Join, Slice1
// and ScatterND build on.
#pragma once

#include "internal.hpp"

namespace vkdml {
namespace detail {

// A box of elements copied from one tensor slot to another: output element
// at coordinate c (c[d] < sizes[d]) comes from input element
// inputOffset + sum c[d]*inputStrides[d]; it goes to outputOffset + sum c[d]*outputStrides[d].
struct CopyBox {
  uint32_t rank = 0;
  std::array<uint32_t, kMaxDims> sizes{};
  std::array<int64_t, kMaxDims> inputStrides{};
  std::array<int64_t, kMaxDims> outputStrides{};
  uint64_t inputOffset = 0;
  uint64_t outputOffset = 0;
  uint32_t inputSlot = 0;
  uint32_t outputSlot = 0;
  // Rows the copy may skip (ScatterND's rows that its updates overwrite):
  // with maskedDims > 0, the row-major index over the leading maskedDims
  // dimensions is a bit in the word array bound at slot maskSlot, and an
  // element whose bit is set is not copied. The other dimensions must hold
  // more than one element.
  uint32_t maskedDims = 0;
  uint32_t maskSlot = 0;
};

// A box that copies `t`'s elements in place of each other: strides from the
// tensor, offsets zero.
CopyBox boxOf(const TensorInfo& input, const TensorInfo& output, uint32_t inputSlot, uint32_t outputSlot);

// Drops size-1 dimensions and merges neighbours that are contiguous in both
// tensors, so that a packed copy becomes one dimension (never merging across
// the end of the masked dimensions).
CopyBox collapse(const CopyBox& box);

// One dispatch copying every box with 32- or 64-bit offset arithmetic
// (`indexBits`, indexBitsFor); `baseAlignment` is the smallest offset
// alignment promised for the tensors' bindings (TensorInfo::offsetAlignment).
Dispatch planCopy(const std::vector<CopyBox>& boxes, uint32_t elementSize, uint32_t indexBits, uint32_t baseAlignment);

// One dispatch copying the elements of `tensor` (bound at `inputSlot`) to
// `outputSlot` from byte `outputOffsetBytes` (a multiple of
// DML_PERSISTENT_BUFFER_ALIGNMENT) in the same layout, strides and all: the
// initializer's copy of an owned input into the persistent resource, which
// executions then read as they would the input. Elements, not the
// footprint's bytes: a footprint may span 2^32 elements and more.
Dispatch planOwnedCopy(uint32_t inputSlot, uint32_t outputSlot, uint64_t outputOffsetBytes, const TensorInfo& tensor,
                       const PlanDefaults& defaults);

// Makes a dispatch of planCopy with one box do nothing where, when it runs,
// the box's input and output slots hold one address (an in-place execution:
// checked by the kernel, so that a recorded command buffer follows a rebound
// table).
void skipCopyWhenAliased(Dispatch& copy);

// On a CPU device (lavapipe), where every box's rows are contiguous runs in
// both tensors, long enough and few enough: one transfer dispatch
// (Dispatch::transfers, one region per row) instead of the kernel. There a
// kernel's loads and stores run one lane and one component at a time, far
// below the driver's memcpy (bench/RESULTS.md, "lavapipe"). Masked boxes are
// copied whole. Nothing otherwise, or where the copy path (options, else the
// Device's default) is Kernel (the GPU plan on a CPU device: the tests run
// both).
std::optional<Dispatch> planTransfer(const std::vector<CopyBox>& boxes, uint32_t elementSize, const DeviceInfo& device,
                                     const CompileOptions& options, const PlanDefaults& defaults);

// Whether a data-movement operator may use transfer commands: a CPU device
// and a copy path (options, else the Device's default) of Auto.
// A transfer dispatch is worth it with at most kMaxTransferCommands regions
// and fills, of kMinTransferRunBytes or more on average: lavapipe pays a
// fixed cost per region (a command-list entry, a map of each buffer) on top
// of its memcpy, and the regions are built again at every record.
bool transfersAllowed(const DeviceInfo& device, const CompileOptions& options, const PlanDefaults& defaults);
constexpr uint64_t kMinTransferRunBytes = 64;
constexpr uint64_t kMaxTransferCommands = uint64_t(1) << 16;

// The Device's default copy path from $VKDML_COPY_PATH ("auto" or "kernel"):
// InvalidArgument, naming the variable, for any other value.
CopyPath copyPathFromEnvironment();
// $VKDML_INDEX_BITS (PlanDefaults::indexBits): 0 for auto, or 64.
uint32_t indexBitsFromEnvironment();

}  // namespace detail
}  // namespace vkdml
