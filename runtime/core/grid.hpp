// Workgroup grids that keep each invocation's loops within kLoopBudget.
#pragma once

#include <array>
#include <cstdint>

#include "plan.hpp"

namespace vkdml {
namespace detail {

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
