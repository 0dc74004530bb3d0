#include "copy.hpp"
#include "interface/copy.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace vkdml {
namespace detail {

using shader::CopyParams;
using shader::CopySegment;
static_assert(shader::MAX_DIMS == kMaxDims, "the parameter blocks' arrays hold every dimension");

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

namespace {
// Whether whole == part * count. Steps times strides may reach 2^63
// (DML_SLICE1 over a tensor spanning nearly 2^64 bytes): a product that
// does not fit in 64 bits equals no stride.
bool isProduct(int64_t whole, int64_t part, uint32_t count) {
  const uint64_t magnitude = part < 0 ? 0 - static_cast<uint64_t>(part) : static_cast<uint64_t>(part);
  if (count != 0 && magnitude > static_cast<uint64_t>(INT64_MAX) / count) return false;
  return whole == part * int64_t(count);
}
}  // namespace

CopyBox collapse(const CopyBox& box) {
  CopyBox out = box;
  out.rank = 0;
  out.maskedDims = 0;
  for (uint32_t d = 0; d < box.rank; ++d) {
    if (d == box.maskedDims && box.maskedDims > 0) {
      // The masked dimensions end here: keep at least one (of size 1 if
      // all were), and merge nothing across.
      if (out.rank == 0) {
        out.sizes[0] = 1;
        out.inputStrides[0] = out.outputStrides[0] = 0;
        out.rank = 1;
      }
      out.maskedDims = out.rank;
    }
    if (box.sizes[d] == 1) continue;
    if (out.rank > out.maskedDims) {  // before the masked dimensions end, maskedDims is 0
      uint32_t last = out.rank - 1;   // the next-outer kept dimension
      // Merge the outer dimension `last` with this inner one `d` when the
      // outer stride steps exactly over the inner extent in both tensors.
      if (isProduct(out.inputStrides[last], box.inputStrides[d], box.sizes[d]) &&
          isProduct(out.outputStrides[last], box.outputStrides[d], box.sizes[d]) &&
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

namespace {
constexpr uint32_t kVectorBytes = 16;

// Whether a collapsed box's rows are contiguous runs that can move as
// 16-byte vectors: unit innermost strides, and every offset and outer stride
// (hence every row's start) a multiple of 16 bytes from 16-byte-aligned bases.
bool vectorizable(const CopyBox& box, uint32_t elementSize) {
  const uint32_t last = box.rank - 1;
  if (box.inputStrides[last] != 1 || box.outputStrides[last] != 1) return false;
  // In unsigned arithmetic: the byte counts may pass 2^63, and wrapping
  // modulo 2^64 keeps them modulo 16 (negative strides too).
  auto aligned = [&](uint64_t elements) { return elements * elementSize % kVectorBytes == 0; };
  if (!aligned(box.sizes[last]) || !aligned(box.inputOffset) || !aligned(box.outputOffset)) return false;
  for (uint32_t d = 0; d < last; ++d)
    if (!aligned(static_cast<uint64_t>(box.inputStrides[d])) || !aligned(static_cast<uint64_t>(box.outputStrides[d])))
      return false;
  return true;
}

// The same box in 16-byte elements.
CopyBox toVectors(CopyBox box, uint32_t elementSize) {
  const int64_t per = kVectorBytes / elementSize;
  const uint32_t last = box.rank - 1;
  box.sizes[last] = static_cast<uint32_t>(box.sizes[last] / per);
  for (uint32_t d = 0; d < last; ++d) {
    box.inputStrides[d] /= per;
    box.outputStrides[d] /= per;
  }
  box.inputOffset /= static_cast<uint64_t>(per);
  box.outputOffset /= static_cast<uint64_t>(per);
  return box;
}
}  // namespace

Dispatch planCopy(const std::vector<CopyBox>& originals, uint32_t elementSize, uint32_t indexBits,
                  uint32_t baseAlignment) {
  std::vector<CopyBox> boxes;
  for (const CopyBox& original : originals) boxes.push_back(collapse(original));
  // One element size serves the whole dispatch: vectors only if every box allows them.
  bool vectors =
      elementSize < kVectorBytes && baseAlignment % kVectorBytes == 0 &&
      std::all_of(boxes.begin(), boxes.end(), [&](const CopyBox& b) { return vectorizable(b, elementSize); });
  if (vectors)
    for (CopyBox& box : boxes) box = toVectors(box, elementSize);
  const uint32_t unit = vectors ? kVectorBytes : elementSize;

  Dispatch d;
  d.kernel = copyKernel(unit, indexBits);
  // copy.comp's loops per row besides the walk along it: the binary search
  // for the row's segment, then the decoding of its outer coordinates.
  uint32_t halvings = 0, maxRank = 1;
  while ((uint64_t(1) << halvings) < boxes.size()) ++halvings;
  for (const CopyBox& box : boxes) maxRank = std::max(maxRank, box.rank);
  const uint64_t rowPasses = loopPasses(halvings) + loopPasses(maxRank - 1);

  // The segments, with rows longer than `pieceLength` walked as pieces of at
  // most that length (a power-of-two count of them per row). The lanes of a
  // row are shared by all rows, so a few long rows among many short ones
  // would leave each lane of the long ones too far to walk.
  CopyParams header{};
  std::vector<CopySegment> segments;
  LaneGrid grid;
  auto plan = [&](uint64_t pieceLength) {
    header = {0, static_cast<uint32_t>(boxes.size()), 0, 0, 0};
    segments.clear();
    uint64_t longestPiece = 1;
    for (const CopyBox& box : boxes) {
      CopySegment s{};
      s.firstRow = header.totalRows;
      s.inputOffset = box.inputOffset;
      s.outputOffset = box.outputOffset;
      s.rank = box.rank;
      s.inputSlot = box.inputSlot;
      s.outputSlot = box.outputSlot;
      if (box.maskedDims > 0) {
        if (box.maskedDims >= box.rank) throw std::logic_error("planCopy: a masked box needs unmasked dimensions");
        s.maskSlot = box.maskSlot;
        s.rowsPerMaskBit = 1;
        for (uint32_t i = box.maskedDims; i + 1 < box.rank; ++i) s.rowsPerMaskBit *= box.sizes[i];
      }
      uint64_t rows = 1;
      for (uint32_t i = 0; i < kMaxDims; ++i) s.sizes[i] = 1;
      for (uint32_t i = 0; i < box.rank; ++i) {  // stored aligned to the end
        uint32_t at = kMaxDims - box.rank + i;
        s.sizes[at] = box.sizes[i];
        s.inputStrides[at] = box.inputStrides[i];
        s.outputStrides[at] = box.outputStrides[i];
        if (i + 1 < box.rank) rows *= box.sizes[i];
      }
      // Pieces: the shader's last piece starts at (2^shift - 1) * piece < 2^32.
      const uint64_t length = box.sizes[box.rank - 1];
      while ((((length - 1) >> s.pieceShift) + 1) > pieceLength &&
             ((uint64_t(2) << s.pieceShift) - 1) * (((length - 1) >> (s.pieceShift + 1)) + 1) < (uint64_t(1) << 32))
        ++s.pieceShift;
      longestPiece = std::max(longestPiece, ((length - 1) >> s.pieceShift) + 1);
      header.totalRows += rows << s.pieceShift;
      segments.push_back(s);
    }
    grid = laneGrid(longestPiece, header.totalRows, rowPasses);
  };
  // Halving the pieces down to 2 elements: a piece of at least 2 keeps the
  // rows no more than the elements (below 2^32, as copy.comp counts them),
  // and rows of at most 2 lanes bound the walk even where nearly 2^32 short
  // rows share the grid with a long one.
  plan(~uint64_t(0));
  for (uint64_t pieceLength = uint64_t(1) << 16; grid.loopPasses > kLoopBudget && pieceLength >= 2; pieceLength /= 2)
    plan(pieceLength);
  d.loopPasses = grid.loopPasses;
  header.columnShift = grid.columnShift;
  header.rowStride = grid.rowStride;
  shader::CopyConstants constants;
  constants.WORKGROUP_SIZE = LaneGrid::kGroupSize;
  d.specialization = shader::specializationOf(constants);
  d.groups = {grid.groups, 1, 1};
  d.params = bytesOf(header);
  for (const auto& s : segments) appendBytes(d.params, s);
  return d;
}

Dispatch planOwnedCopy(uint32_t inputSlot, uint32_t outputSlot, uint64_t outputOffsetBytes, const TensorInfo& tensor,
                       const PlanDefaults& defaults) {
  if (outputOffsetBytes % tensor.elementSize)
    throw Error(
        ErrorCode::Internal, "copy", "offset",
        concat("an owned input's copy at byte ", outputOffsetBytes, ", not a multiple of ", tensor.elementSize));
  CopyBox box = boxOf(tensor, tensor, inputSlot, outputSlot);
  box.outputOffset = outputOffsetBytes / tensor.elementSize;
  return planCopy({box}, tensor.elementSize, indexBitsFor(box.outputOffset + tensor.footprintElements, defaults),
                  std::min<uint32_t>(tensor.offsetAlignment, DML_PERSISTENT_BUFFER_ALIGNMENT));
}

void skipCopyWhenAliased(Dispatch& copy) {
  const uint32_t one = 1;
  std::memcpy(copy.params.data() + offsetof(CopyParams, skipWhenAliased), &one, sizeof one);
}

CopyPath copyPathFromEnvironment() {
  const char* env = std::getenv("VKDML_COPY_PATH");
  if (!env || !*env || std::string(env) == "auto") return CopyPath::Auto;
  if (std::string(env) == "kernel") return CopyPath::Kernel;
  throwInvalid("Device", "VKDML_COPY_PATH", concat("must be auto or kernel, not \"", env, "\""));
}

uint32_t indexBitsFromEnvironment() {
  const char* env = std::getenv("VKDML_INDEX_BITS");
  if (!env || !*env || std::string(env) == "auto") return 0;
  if (std::string(env) == "64") return 64;
  throwInvalid("Device", "VKDML_INDEX_BITS", concat("must be auto or 64, not \"", env, "\""));
}

bool transfersAllowed(const DeviceInfo& device, const CompileOptions& options, const PlanDefaults& defaults) {
  const CopyPath path = options.copyPath == CopyPath::Auto ? defaults.copyPath : options.copyPath;
  return device.type == VK_PHYSICAL_DEVICE_TYPE_CPU && path == CopyPath::Auto;
}

std::optional<Dispatch> planTransfer(const std::vector<CopyBox>& originals, uint32_t elementSize,
                                     const DeviceInfo& device, const CompileOptions& options,
                                     const PlanDefaults& defaults) {
  if (!transfersAllowed(device, options, defaults)) return std::nullopt;
  std::vector<CopyBox> boxes;
  uint64_t regions = 0, bytes = 0;
  for (const CopyBox& original : originals) {
    CopyBox box = original;
    box.maskedDims = 0;  // copied whole: a transfer cannot read the mask
    box = collapse(box);
    const uint32_t last = box.rank - 1;
    if (box.inputStrides[last] != 1 || box.outputStrides[last] != 1) return std::nullopt;
    uint64_t rows = 1;
    for (uint32_t d = 0; d < last; ++d) rows *= box.sizes[d];  // below 2^32: the elements are
    regions += rows;
    bytes += rows * box.sizes[last] * elementSize;
    if (regions > kMaxTransferCommands) return std::nullopt;
    boxes.push_back(box);
  }
  if (bytes < regions * kMinTransferRunBytes) return std::nullopt;
  Dispatch d;
  d.loopPasses = 0;  // no kernel, no loops
  for (const CopyBox& box : boxes) {
    Dispatch::Transfer& t = d.transfers.emplace_back();
    t.sourceSlot = box.inputSlot;
    t.destinationSlot = box.outputSlot;
    const uint32_t last = box.rank - 1;
    // The rows in row-major order, their offsets stepped like an odometer
    // (modulo 2^64, like the kernel's: negative strides step back).
    std::array<uint32_t, kMaxDims> at{};
    uint64_t input = box.inputOffset, output = box.outputOffset;
    for (;;) {
      t.regions.push_back({input * elementSize, output * elementSize, uint64_t(box.sizes[last]) * elementSize});
      uint32_t dim = last;  // dimensions dim.. have wrapped
      while (dim > 0 && ++at[dim - 1] == box.sizes[dim - 1]) {
        --dim;
        at[dim] = 0;
        input -= static_cast<uint64_t>(box.inputStrides[dim]) * (box.sizes[dim] - 1);
        output -= static_cast<uint64_t>(box.outputStrides[dim]) * (box.sizes[dim] - 1);
      }
      if (dim == 0) break;  // every outer coordinate wrapped: that was the last row
      input += static_cast<uint64_t>(box.inputStrides[dim - 1]);
      output += static_cast<uint64_t>(box.outputStrides[dim - 1]);
    }
  }
  return d;
}

}  // namespace detail
}  // namespace vkdml
