// What an operator's plan is made of: the loop model every planner obeys,
// the dispatches of kernels (shaders/, named by the generated kernel table)
// and OperatorPlan, the validated, device-independent form of a descriptor.
#pragma once

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "interface/common.h"  // shaders/interface: what kernels and host share
#include "kernels.hpp"         // generated from shaders/CMakeLists.txt
#include "tensor.hpp"

namespace vkdml {
namespace detail {

// Loops. Mesa's lavapipe ends loops early, silently: each SIMD batch of
// invocations (8 lanes with AVX2, one subgroup) has one counter of 65535
// passes through loop headers, shared by every loop of the shader, nested or
// in sequence, and reset for the next batch (not per workgroup). A loop that
// runs n times costs n + 1 passes each time it is entered, for as long as
// any lane of the batch runs it (lanes with different trip counts cost the
// batch the largest); a loop left early stops costing; loops the compiler
// unrolls fully cost nothing; branches run masked, so a loop in a branch
// that no lane takes still costs its passes. When the counter runs out, the
// loop in progress exits and every later loop runs its body once. So no
// kernel may rely on long loops: each planner models the most loop passes
// one invocation of each of its dispatches can make, mirroring its kernel's
// loops (every loop counts, taken or not, with its worst trip count over all
// invocations, nested ones multiplied out, except loops marked [[unroll]]
// with constant or specialization-constant bounds and no early exit, which
// lavapipe unrolls), and shapes its dispatches (more workgroups, work split
// over several dispatches) to stay within this budget, on every device
// alike: half of lavapipe's limit, a margin for what a model misses.
constexpr uint64_t kLoopBudget = uint64_t(1) << 15;

// InvalidArgument, naming `op` and the field, unless each of CompileOptions'
// enums holds one of its values (core/options.cpp; compileOperator checks
// before planning, whichever operator it compiles).
void checkCompileOptions(const char* op, const CompileOptions& options);

// The passes through the header of a loop that runs `iterations` times
// around a body making `body` passes of its own (saturating at 2^64 - 1).
inline uint64_t loopPasses(uint64_t iterations, uint64_t body = 0) {
  constexpr uint64_t kMax = ~uint64_t(0);
  if (body == kMax || (iterations > 0 && body + 1 > (kMax - 1) / iterations)) return kMax;
  return iterations * (body + 1) + 1;
}

// One kernel launch: which SPIR-V variant, its specialization constants
// (by constant_id, from the kernel's struct in shaders/interface: id 0 is
// always the workgroup size), its parameter block (std430, read through a buffer reference) and its workgroup counts.
struct Dispatch {
  Kernel kernel{};  // a variant of the kernel table (shaders/CMakeLists.txt)
  shader::Specialization specialization;
  std::vector<uint8_t> params;
  std::array<uint32_t, 3> groups{1, 1, 1};
  // Skip this dispatch when these two binding slots resolve to one address
  // (in-place execution where the dispatch would copy a tensor onto itself).
  std::optional<std::pair<uint32_t, uint32_t>> skipWhenSlotsAlias;
  // Bytes of the temporary resource (scratch) it uses (0: none), bound at
  // kTemporarySlot: the largest such size among an operator's dispatches is
  // its BindingProperties::temporaryResourceSize. Its content is arbitrary
  // when the execution starts, unless some dispatch sets zeroScratch: then
  // the compiled program opens with a fill kernel (core/fill.hpp) zeroing
  // the whole temporary resource.
  uint64_t scratchBytes = 0;
  bool zeroScratch = false;
  // Bytes of counters in the binding table's own memory, from
  // tableCountersOffset: zero when the table is made or reset, and left
  // zero by the dispatch when it ends (shader::K_SPLIT_ZEROES). Each table
  // holds the largest among an operator's dispatches.
  uint64_t tableCounterBytes = 0;
  // Part of the initializer (CompiledOperator::recordInitializer), not of
  // the execution: it reads owned inputs (through the initializer's slot
  // addresses) and writes the first persistentBytes of the persistent
  // resource (kPersistentSlot), which executions then read. packsOwnedSlot:
  // the owned input it packs, whose plain copy is then not kept.
  bool initializer = false;
  uint64_t persistentBytes = 0;
  std::optional<uint32_t> packsOwnedSlot;
  // The most loop passes (see kLoopBudget) one invocation makes, from the
  // planner's model of the kernel: compileOperator refuses a dispatch that
  // leaves it unmodeled or over the budget.
  uint64_t loopPasses = ~uint64_t(0);
  // Transfers or fills: transfer commands instead of a kernel (kernel,
  // specialization, params and groups unused): one vkCmdCopyBuffer per
  // Transfer, then one vkCmdFillBuffer per Fill (offsets and sizes multiples
  // of 4), all offsets relative to the slots' bound ranges and the bytes they
  // write disjoint. A CPU device moves contiguous runs this way far faster
  // than through a kernel (copy.hpp). They name the buffers bound when they
  // are recorded, so only Device::execute, which submits at once, records
  // them; record() takes the kernel plan (CopyPath::Kernel) instead.
  struct Transfer {
    uint32_t sourceSlot = 0;
    uint32_t destinationSlot = 0;
    std::vector<VkBufferCopy> regions;
  };
  std::vector<Transfer> transfers;
  struct Fill {
    uint32_t slot = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    uint32_t data = 0;  // the 4-byte pattern
  };
  std::vector<Fill> fills;
  bool isTransfer() const { return !transfers.empty() || !fills.empty(); }
};

template <typename T>
std::vector<uint8_t> bytesOf(const T& value, size_t extra = 0) {
  std::vector<uint8_t> out(sizeof(T) + extra);
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}
template <typename T>
void appendBytes(std::vector<uint8_t>& out, const T& value) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

// The slots after the tensors' (inputs, then outputs): the temporary and
// the persistent resource.
inline uint32_t temporarySlot(size_t tensorSlots) {
  return static_cast<uint32_t>(tensorSlots);
}
inline uint32_t persistentSlot(size_t tensorSlots) {
  return static_cast<uint32_t>(tensorSlots) + 1;
}

// The binding table's memory (vk/binding.cpp): the executions' address
// array and the initializer's, each of the tensor slots, the temporary and
// the persistent resource; then the dispatches' counters.
inline uint64_t tableCountersOffset(size_t tensorSlots) {
  return 2 * (uint64_t(tensorSlots) + 2) * sizeof(uint64_t);
}

struct Slot {
  std::string name;                  // the descriptor's field, e.g. "InputTensors[2]"
  std::optional<TensorInfo> tensor;  // absent: an optional tensor left out
};

}  // namespace detail

namespace detail {
// What a compile uses where CompileOptions leaves a choice Auto: the
// Device's defaults, read from the environment once, when the Device is
// created (ops/operators.hpp, planDefaultsFromEnvironment).
struct PlanDefaults {
  ConvolutionPath convolutionPath = ConvolutionPath::Auto;           // $VKDML_CONVOLUTION_PATH
  ConvolutionPacking convolutionPacking = ConvolutionPacking::Auto;  // $VKDML_CONVOLUTION_PACKING
  CopyPath copyPath = CopyPath::Auto;                                // $VKDML_COPY_PATH
  DotKernel dotKernel = DotKernel::Auto;                             // $VKDML_DOT_KERNEL
  // The dot-product kernel's tile, BM, BN, BK, TM, TN ($VKDML_DOT_TILE);
  // BK 0: chosen; BM 0: all chosen.
  std::array<uint32_t, 5> dotTile{};
  // The cooperative-matrix tiles' rows where 64, 96 or 128 may be taken
  // ($VKDML_COOPMAT_ROWS); 0: as the plan weighs them.
  uint32_t coopmatRows = 0;
  // What zeroes the output of a K split across the grid where no pack
  // does ($VKDML_SPLIT_ZEROS): Auto, the GEMM's chunks on a GPU and a fill
  // on a CPU device (shader::K_SPLIT_ZEROES); Fill or Chunks on any device.
  enum class SplitZeros { Auto, Fill, Chunks } splitZeros = SplitZeros::Auto;
  // 64: the data-movement operators' kernels (copy, ScatterND,
  // DiagonalMatrix1) take 64-bit offsets whatever their footprints
  // ($VKDML_INDEX_BITS), so that tests run them on tensors that fit in
  // memory; 0: where a footprint passes 2^32 elements.
  uint32_t indexBits = 0;
};

// The offset width of a data-movement kernel over footprints of at most
// `largestFootprint` elements.
inline uint32_t indexBitsFor(uint64_t largestFootprint, const PlanDefaults& defaults) {
  return largestFootprint > (uint64_t(1) << 32) || defaults.indexBits == 64 ? 64 : 32;
}

// The int8 fragment shapes (M x N x K) the KHR and emulated
// cooperative-matrix kernels are compiled for (shaders/CMakeLists.txt), in
// the order the KHR path prefers them (fewest fragments per 16x16x32 block
// first); the NV kernels take the first alone.
inline bool sameShape(const DeviceInfo::MatrixShape& a, const DeviceInfo::MatrixShape& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k;
}
inline constexpr DeviceInfo::MatrixShape kFragmentShapes[] = {{16, 16, 32}, {16, 8, 32}, {16, 16, 16}, {8, 16, 32}};
// The KHR path's shape among those `listed` (the device's), or null.
inline const DeviceInfo::MatrixShape* khrFragment(const std::vector<DeviceInfo::MatrixShape>& listed) {
  for (const DeviceInfo::MatrixShape& shape : kFragmentShapes)
    for (const DeviceInfo::MatrixShape& l : listed)
      if (sameShape(shape, l)) return &shape;
  return nullptr;
}
}  // namespace detail

// The validated, device-independent form of an operator descriptor. Binding
// slots are numbered inputs first, then outputs; kernels find each slot's
// device address at that index of the binding table.
struct OperatorPlan {
  virtual ~OperatorPlan() = default;
  DML_OPERATOR_TYPE type = DML_OPERATOR_INVALID;
  const char* name = "";
  std::vector<detail::Slot> inputs;
  std::vector<detail::Slot> outputs;
  // An output may overlap no input, except this (input slot, output slot)
  // pair bound at one address (ranges of any length): it runs in place.
  std::optional<std::pair<uint32_t, uint32_t>> inPlace;
  // The dispatches that carry the operator out on this device, in order; a
  // barrier separates consecutive ones (compute or transfer, as each is).
  virtual std::vector<detail::Dispatch> plan(const DeviceInfo& device, const CompileOptions& options,
                                             const detail::PlanDefaults& defaults) const = 0;
};

}  // namespace vkdml
