#include "copy.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr uint32_t kGroupSize = 256;

// Mirrors `CopySegment` and `CopyParams` in shaders/copy.comp (std430).
struct CopySegment {
  uint64_t firstElement;
  uint64_t inputOffset;
  uint64_t outputOffset;
  int64_t inputStrides[kMaxDims];
  int64_t outputStrides[kMaxDims];
  uint32_t sizes[kMaxDims];
  uint32_t rank;
  uint32_t inputSlot;
  uint32_t outputSlot;
  uint32_t pad;
};
static_assert(sizeof(CopySegment) == 200, "std430 layout of CopySegment");

struct CopyParamsHeader {
  uint64_t totalElements;
  uint32_t segmentCount;
  uint32_t pad;
};
static_assert(sizeof(CopyParamsHeader) == 16, "std430 layout of CopyParams");
}  // namespace

CopyBox boxOf(const TensorInfo& input, const TensorInfo& output, uint32_t inputSlot, uint32_t outputSlot) {
  CopyBox box;
  box.rank = output.rank;
  for (uint32_t d = 0; d < output.rank; ++d) {
    box.sizes[d] = output.sizes[d];
    box.inputStrides[d] = static_cast<int64_t>(input.strides[d]);
    box.outputStrides[d] = static_cast<int64_t>(output.strides[d]);
  }
  box.inputSlot = inputSlot;
  box.outputSlot = outputSlot;
  return box;
}

CopyBox collapse(const CopyBox& box) {
  CopyBox out = box;
  out.rank = 0;
  for (uint32_t d = 0; d < box.rank; ++d) {
    if (box.sizes[d] == 1) continue;
    if (out.rank > 0) {
      uint32_t last = out.rank - 1;  // the next-outer kept dimension
      // Merge the outer dimension `last` with this inner one `d` when the
      // outer stride steps exactly over the inner extent in both tensors.
      if (out.inputStrides[last] == box.inputStrides[d] * box.sizes[d] &&
          out.outputStrides[last] == box.outputStrides[d] * box.sizes[d] &&
          uint64_t(out.sizes[last]) * box.sizes[d] <= 0xFFFFFFFFull) {
        out.sizes[last] *= box.sizes[d];
        out.inputStrides[last] = box.inputStrides[d];
        out.outputStrides[last] = box.outputStrides[d];
        continue;
      }
    }
    out.sizes[out.rank] = box.sizes[d];
    out.inputStrides[out.rank] = box.inputStrides[d];
    out.outputStrides[out.rank] = box.outputStrides[d];
    ++out.rank;
  }
  if (out.rank == 0) {  // a single element
    out.rank = 1;
    out.sizes[0] = 1;
    out.inputStrides[0] = out.outputStrides[0] = 1;
  }
  return out;
}

Dispatch planCopy(const std::vector<CopyBox>& boxes, uint32_t elementSize, uint64_t largestFootprint,
                  const DeviceInfo& device) {
  bool index64 = largestFootprint > (uint64_t(1) << 32);
  Dispatch d;
  d.kernel = concat("copy_e", elementSize, index64 ? "_i64" : "_i32");
  d.specialization = {kGroupSize};
  CopyParamsHeader header{0, static_cast<uint32_t>(boxes.size()), 0};
  std::vector<CopySegment> segments;
  for (const CopyBox& original : boxes) {
    CopyBox box = collapse(original);
    CopySegment s{};
    s.firstElement = header.totalElements;
    s.inputOffset = original.inputOffset;
    s.outputOffset = original.outputOffset;
    s.rank = box.rank;
    s.inputSlot = box.inputSlot;
    s.outputSlot = box.outputSlot;
    uint64_t count = 1;
    for (uint32_t i = 0; i < kMaxDims; ++i) s.sizes[i] = 1;
    for (uint32_t i = 0; i < box.rank; ++i) {  // stored aligned to the end
      uint32_t at = kMaxDims - box.rank + i;
      s.sizes[at] = box.sizes[i];
      s.inputStrides[at] = box.inputStrides[i];
      s.outputStrides[at] = box.outputStrides[i];
      count *= box.sizes[i];
    }
    header.totalElements += count;
    segments.push_back(s);
  }
  d.params = bytesOf(header);
  for (const auto& s : segments) appendBytes(d.params, s);
  d.groups = {gridGroups(header.totalElements, kGroupSize, device), 1, 1};
  return d;
}

}  // namespace detail
}  // namespace vkdml
