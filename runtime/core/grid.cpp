#include "grid.hpp"

#include <algorithm>

#include "checked.hpp"

namespace vkdml {
namespace detail {

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
// The budgets of workgroups the grids below start from, and the most they
// grow to where an invocation's loops need it.
// 8 M invocations: an H100 copies faster with more in flight than it holds
// at once (bench/results/data_movement.md, 2026-12-07).
constexpr uint64_t kGridGroups = 32768;
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

}  // namespace detail
}  // namespace vkdml
