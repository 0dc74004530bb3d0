// DML_CONVOLUTION_INTEGER's tiled kernels (convolution_integer_plan.cpp):
// their specialization constants set from the parameter block and the tile,
// and their dispatches, one per chunk of K.
#pragma once

#include <algorithm>
#include <vector>

#include "convolution_integer_plan.hpp"

namespace vkdml {
namespace detail {

// One dispatch per chunk of K (`step` bytes of k per K step): `d` with its
// parameter block for each, and its specialization constants `constants`
// with the field `flags` carrying the flags of `constantFlags` (the kernel
// reads the others from ConvParams, or not at all): those of the split
// (shader::SPLIT_FLAGS) at least. Unsplit work dispatches as always: those
// flags 0, so the kernel folds their code away.
template <typename Constants>
std::vector<Dispatch> chunkDispatches(Dispatch d, ConvParams p, const GemmSplit& split, uint32_t step,
                                      Constants constants, uint32_t Constants::*flags, uint32_t constantFlags) {
  std::vector<Dispatch> dispatches;
  d.groups = split.groups;
  d.loopPasses = split.loopPasses;
  for (uint32_t c = 0; c < split.chunks; ++c) {
    ConvParams chunk = p;
    if (split.groups[1] > 1) chunk.flags |= shader::GRID_ROWS;
    if (split.chunks > 1) {
      chunk.flags = (chunk.flags | shader::K_CHUNKED) & ~shader::K_TWO_STEPS;  // a chunk's step count is its own
      chunk.kBegin = c * split.chunkSteps * step;
      chunk.kLength =
          static_cast<uint32_t>(std::min<uint64_t>(uint64_t(split.chunkSteps) * step, p.groupK - chunk.kBegin));
    }
    if (c > 0) chunk.flags |= shader::ACCUMULATE;
    d.params = bytesOf(chunk);
    constants.*flags = chunk.flags & constantFlags;
    d.specialization = shader::specializationOf(constants);
    dispatches.push_back(d);
  }
  return dispatches;
}

// The specialization constants of a cooperative-matrix kernel with its
// geometry and flags (VKDML_CONVOLUTION_GEOMETRY) set from `p`.
template <typename Constants>
Constants withGeometry(const ConvParams& p) {
  Constants c;
  c.KH = p.kernelH;
  c.KW = p.kernelW;
  c.STRIDE_Y = p.strideY;
  c.STRIDE_X = p.strideX;
  c.DILATION_Y = p.dilationY;
  c.DILATION_X = p.dilationX;
  c.PAD_Y = p.padY;
  c.PAD_X = p.padX;
  c.FLAGS = p.flags;
  return c;
}

// The specialization constants `c` of a tiled kernel with the tile `t`.
template <typename Constants>
Constants tileConstants(const TileShape& t, Constants c = {}) {
  c.WORKGROUP_SIZE = t.workgroup();
  c.BM = t.bm;
  c.BN = t.bn;
  c.BK = t.bk;
  c.TM = t.tm;
  c.TN = t.tn;
  return c;
}

}  // namespace detail
}  // namespace vkdml
