#include "fill.hpp"

#include "interface/fill.h"

namespace vkdml {
namespace detail {

Dispatch planFill(uint32_t slot, uint64_t offset, uint64_t bytes, uint32_t pattern, const DeviceInfo& device) {
  if (offset % 4 || bytes % 4 || bytes / 4 > UINT32_MAX)
    throw Error(ErrorCode::Internal, "fill", "bytes",
                concat("fill of ", bytes, " bytes at offset ", offset, ": not whole words below 2^32 of them"));
  shader::FillParams p{};
  p.offset = offset;
  p.words = static_cast<uint32_t>(bytes / 4);
  p.pattern = pattern;
  p.slot = slot;
  shader::FillConstants constants;
  Dispatch d;
  d.kernel = Kernel::fill;
  d.specialization = shader::specializationOf(constants);
  // A grid for the 16-byte stores; fill.comp's loops: the quads, then the
  // words (all of them where the range is not 16-byte aligned).
  d.groups = {gridGroups((uint64_t(p.words) + 3) / 4, constants.WORKGROUP_SIZE, device), 1, 1};
  d.params = bytesOf(p);
  const uint64_t invocations = uint64_t(d.groups[0]) * constants.WORKGROUP_SIZE;
  d.loopPasses = loopPasses((p.words / 4 + invocations - 1) / invocations) +
                 loopPasses((p.words + invocations - 1) / invocations);
  return d;
}

}  // namespace detail
}  // namespace vkdml
