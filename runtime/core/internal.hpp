// Internal interfaces shared by the runtime's files. Each operator is one file
// (runtime/<operator>.cpp) that turns a DirectML descriptor into an
// OperatorPlan: its validated tensors, and the dispatches of kernels from
// shaders/ that carry it out on a given device.
#pragma once

#include <volk.h>

#include <vkdml/vkdml.hpp>

#include "interface/common.h"  // shaders/interface: what kernels and host share
#include "kernels.hpp"         // generated from shaders/CMakeLists.txt

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace vkdml {
namespace detail {

constexpr uint32_t kMaxDims = DML_TENSOR_DIMENSION_COUNT_MAX1;
constexpr uint64_t kMaxElements = 0xFFFFFFFFull;  // DirectML: at most 2^32 - 1 elements

// Builds the message of an Error: "<op>: <field>: <rule> (<values>)".
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}

template <typename T>
std::string list(const T* values, uint32_t count) {
  std::ostringstream s;
  s << '{';
  for (uint32_t i = 0; i < count; ++i) s << (i ? "," : "") << +values[i];
  s << '}';
  return s.str();
}

[[noreturn]] void throwInvalid(const char* op, const std::string& field, const std::string& rule);
[[noreturn]] void throwUnsupported(const char* op, const std::string& field, const std::string& rule);
[[noreturn]] void throwVulkan(VkResult result, const char* call);
inline void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throwVulkan(result, call);
}

// The name of a data type, "UNKNOWN" for any other value: it takes the raw
// bits, since a descriptor's field may hold any value.
const char* dataTypeName(uint32_t type);

// An enum field of a caller's descriptor as its bits: a value outside the
// enumerators would be undefined behaviour to load as the enum type.
template <typename Enum>
uint32_t rawBits(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(uint32_t), "DirectML enums are 32-bit");
  uint32_t bits;
  std::memcpy(&bits, &field, sizeof bits);
  return bits;
}

enum class TensorRole { Input, Output };

// A validated DML_BUFFER_TENSOR_DESC with its strides made explicit.
struct TensorInfo {
  DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
  uint32_t elementSize = 0;
  uint32_t rank = 0;
  std::array<uint32_t, kMaxDims> sizes{};
  std::array<uint64_t, kMaxDims> strides{};  // in elements
  bool packed = true;                        // no Strides given
  uint64_t elementCount = 0;
  uint64_t footprintElements = 0;  // 1 + sum (size-1)*stride: elements the layout spans
  uint64_t totalBytes = 0;         // TotalTensorSizeInBytes
  uint32_t offsetAlignment = 16;   // a binding's offset must be a multiple of this
  // DML_TENSOR_FLAG_OWNED_BY_DML (inputs only): bound for initialization,
  // read from the persistent resource by executions.
  bool owned = false;

  bool sameLayout(const TensorInfo& o) const;
  std::string shape() const;  // "{2,3,4}"
};

// Reads and checks a tensor descriptor against the rules every tensor obeys
// (OPERATORS.md, "Tensors"). `field` names it in errors ("InputTensors[3]").
// Returns nothing for an absent optional tensor.
std::optional<TensorInfo> readTensor(const char* op, const std::string& field, const DML_TENSOR_DESC* desc,
                                     TensorRole role, bool optional);

// Rules shared by several operators.
void requireRank(const char* op, const std::string& field, const TensorInfo& t, uint32_t minRank, uint32_t maxRank);
void requireSameType(const char* op, const std::string& field, const TensorInfo& t, const std::string& otherField,
                     const TensorInfo& other);
void requireType(const char* op, const std::string& field, const TensorInfo& t,
                 std::initializer_list<DML_TENSOR_DATA_TYPE> allowed);

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
  // record() fills the whole temporary resource with zeros first.
  uint64_t scratchBytes = 0;
  bool zeroScratch = false;
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

struct Slot {
  std::string name;                  // the descriptor's field, e.g. "InputTensors[2]"
  std::optional<TensorInfo> tensor;  // absent: an optional tensor left out
};

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
  // pair bound to exactly one range: the operator runs in place.
  std::optional<std::pair<uint32_t, uint32_t>> inPlace;
  // The dispatches that carry the operator out on this device, in order; a
  // compute-to-compute barrier separates consecutive ones.
  virtual std::vector<detail::Dispatch> plan(const DeviceInfo& device, const CompileOptions& options) const = 0;
};

namespace detail {

// One create function per row of the operator table (operators.inc), each
// defined in its operator's file.
#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create) \
  std::shared_ptr<OperatorPlan> create(const Desc& desc);
#include "../ops/operators.inc"
#undef VKDML_OPERATOR

// Workgroup counts for a grid-stride loop over `items` with `groupSize`
// invocations per group, capped by the device's limit.
uint32_t gridGroups(uint64_t items, uint32_t groupSize, const DeviceInfo& device);

// Workgroups for a grid-stride loop over `items` (one workgroup each at a
// time) that leaves no workgroup more than `perGroup` of them where it can:
// along x as gridGroups, then rows of such along y (the kernel's group index
// is x + y * countX). Both counts stay within 65535, Vulkan's least limit.
std::array<uint32_t, 3> gridGroups2D(uint64_t items, uint64_t perGroup, const DeviceInfo& device);
// Items a workgroup of such a grid walks at most.
uint64_t itemsPerGroup(uint64_t items, const std::array<uint32_t, 3>& groups);

// A 2-D grid for kernels that walk `rows` rows of `rowLength` items each with
// grid-stride loops: x along a row, y over rows. The workgroup (specialization
// constants 0 and 1) holds 256 invocations, as wide as the row up to 256 so
// that short rows leave no lanes idle. Groups go to rows first, x gets what
// is left of a fixed budget: with many rows each invocation walks several
// items of a row, sharing the per-row work (decoding the row's coordinates).
// The fixed budget grows where the kernel's loops (rowPasses per row besides
// the walk along it, columnPasses per item of that walk) would make more
// than kLoopBudget passes in an invocation.
struct RowGrid {
  std::array<uint32_t, 2> groupSize{1, 1};  // x, y
  std::array<uint32_t, 3> groups{1, 1, 1};
  uint64_t loopPasses = 0;  // of one invocation: rows x (rowPasses + its items x columnPasses)
};
RowGrid rowGrid(uint64_t rowLength, uint64_t rows, uint64_t rowPasses, uint64_t columnPasses);

// A 1-D grid for kernels that walk `rows` rows of up to `rowLength` items:
// each invocation index splits into a lane along a row (its low columnShift
// bits) and a row; the grid walks rowStride rows at once and the shader loops
// over the rest (copy.comp, diagonal_matrix1.comp). Lanes per row cover the
// longest row but take no more than an even share of the grid, so a few long
// rows still spread over the whole GPU. The grid grows where an invocation's
// loops (rowPasses per row besides its walk along the row) would make more
// than kLoopBudget passes.
struct LaneGrid {
  static constexpr uint32_t kGroupSize = 256;
  uint32_t columnShift = 0;
  uint32_t rowStride = 1;
  uint32_t groups = 1;
  uint64_t loopPasses = 0;  // of one invocation: its rows x (rowPasses + its items along the row)
};
LaneGrid laneGrid(uint64_t rowLength, uint64_t rows, uint64_t rowPasses);

}  // namespace detail
}  // namespace vkdml
