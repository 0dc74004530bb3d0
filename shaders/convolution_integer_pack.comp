#version 460
#extension GL_GOOGLE_include_directive : require
// Packs the operands of the cooperative-matrix GEMM (convolution_integer_coopmat.comp
// with PACKED=1) into scratch, so that its staging is one 16-byte load and
// store per chunk: A (the im2col matrix, rows m, padding = the input zero
// point; aChunks = 0 where only the filter is packed) in blocks of [BM rows][32 bytes] per (group, m tile, K step), then
// B (the filter, rows n) in blocks of [BN rows][32 bytes] per (group, n tile,
// K step). Bytes are flipped to INT8 (UINT8 XOR 0x80) and 0 past M, Ng or Kg.
// One invocation per 16-byte chunk (half a row of a block); neighbouring
// invocations write neighbouring chunks. Defines: INDEX_BITS (32 or 64).
#include "convolution_integer.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BM = 128;
layout(constant_id = 2) const uint BN = 256;

layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer ChunkRef { uvec4 value; };

void main() {
  ConvParams p = ConvParams(pc.paramsAddress);
  const uint64_t inputAddress = tensorAddress(0), filterAddress = tensorAddress(2);
  const uint64_t scratch = tensorAddress(p.scratchSlot);
  const uint flags = p.flags;
  const uint inputFlip = (flags & INPUT_SIGNED_FLAG) != 0 ? 0u : 0x80u;
  const uint filterFlip = (flags & FILTER_SIGNED_FLAG) != 0 ? 0u : 0x80u;
  const uint xzBits = (flags & HAS_INPUT_ZERO_POINT) != 0 ? loadByte(tensorAddress(1)) : 0u;
  const uint KW = p.kernelW, KH = p.kernelH, KHW = KH * KW, Kg = p.groupK, kTiles = p.kTiles;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint q = gl_GlobalInvocationID.x; q < p.totalChunks; q += stride) {
    const bool isA = q < p.aChunks;
    const uint chunk = isA ? q : q - p.aChunks, rows = isA ? BM : BN;
    const uint row = (chunk / 2) % rows, block = chunk / 2 / rows;
    const uint kt = block % kTiles, tile = (block / kTiles) % (isA ? p.mTiles : p.nTiles);
    const uint g = block / kTiles / (isA ? p.mTiles : p.nTiles);
    const uint kStart = kt * 32 + 16 * (chunk % 2);
    uint c = kStart / KHW, ky = (kStart % KHW) / KW, kx = kStart % KW;
    uvec4 words = uvec4(0);
    if (isA) {
      const uint m = tile * BM + row;
      if (m < p.M) {
        const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
        const COORD_T iy0 = COORD_T(oy) * COORD_T(p.strideY) - COORD_T(p.padY);
        const COORD_T ix0 = COORD_T(ox) * COORD_T(p.strideX) - COORD_T(p.padX);
        const INDEX_T base = INDEX_T(batch) * INDEX_T(p.inputStrides[0]) + INDEX_T(g * p.groupChannels) * INDEX_T(p.inputStrides[1]);
        [[unroll]] for (uint e = 0; e < 16; ++e) {
          if (kStart + e < Kg) {
            const COORD_T iy = iy0 + COORD_T(ky * p.dilationY), ix = ix0 + COORD_T(kx * p.dilationX);
            const uint value = inRange(iy, p.inputH) && inRange(ix, p.inputW)
                                   ? loadByte(inputAddress + uint64_t(base + INDEX_T(c) * INDEX_T(p.inputStrides[1]) +
                                                                      INDEX_T(iy) * INDEX_T(p.inputStrides[2]) +
                                                                      INDEX_T(ix) * INDEX_T(p.inputStrides[3])))
                                   : xzBits;
            words[e / 4] |= (value ^ inputFlip) << (8 * (e % 4));
            nextK(c, ky, kx, KW, KH);
          }
        }
      }
    } else {
      const uint n = tile * BN + row;
      if (n < p.groupOutputChannels) {
        const INDEX_T base = INDEX_T(g * p.groupOutputChannels + n) * INDEX_T(p.filterStrides[0]);
        [[unroll]] for (uint e = 0; e < 16; ++e) {
          if (kStart + e < Kg) {
            const uint value = loadByte(filterAddress + uint64_t(base + INDEX_T(c) * INDEX_T(p.filterStrides[1]) +
                                                                 INDEX_T(ky) * INDEX_T(p.filterStrides[2]) +
                                                                 INDEX_T(kx) * INDEX_T(p.filterStrides[3])));
            words[e / 4] |= (value ^ filterFlip) << (8 * (e % 4));
            nextK(c, ky, kx, KW, KH);
          }
        }
      }
    }
    ChunkRef(scratch + (isA ? p.packedAOffset : p.packedBOffset) + 16 * uint64_t(chunk)).value = words;
  }
}
