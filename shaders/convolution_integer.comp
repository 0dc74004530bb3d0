#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#if DOT_PRODUCT
#extension GL_EXT_spirv_intrinsics : require
#endif
// DML_CONVOLUTION_INTEGER as a tiled implicit GEMM, per group g:
//
//   Out[m, n] = sum_k (A[m, k] - xz) * (B[n, k] - wz[n])
//   m = (batch, oy, ox) < M = N*OH*OW, n < Ng = OC/G, k = (c, ky, kx) < Kg = C/G*KH*KW
//
// A (the im2col of the input) is never materialized: each K step gathers a
// BM x BK tile of it straight into shared memory, padded positions holding
// the input zero point. B is the filter, read with packed loads where its K
// extent is contiguous. Both tiles keep the raw 8-bit values, 4 consecutive k
// per word, so the inner loop is pure 8-bit products; the zero points are
// folded in at the end with the expansion
//
//   sum (x - xz)(w - wz) = sum x*w - wz*sum x - xz*sum w + Kg*xz*wz
//
// whose row sums (sum x) and column sums (sum w) are taken from the staged
// tiles. All arithmetic is 32-bit two's complement, so the result is the
// exact sum modulo 2^32 whatever the order: later variants (dot product,
// cooperative matrix) only replace the inner loop and match bit for bit.
// The expansion holds for any chunk of K alone (Kg becomes the chunk's
// length), so a K too deep for one invocation's loops runs as several
// dispatches, each adding its chunk's sums to the output (ACCUMULATE).
//
// Defines: INPUT_SIGNED, FILTER_SIGNED (0: UINT8, 1: INT8), INDEX_BITS (32 or
// 64: element offsets and spatial coordinates; 64 only for huge tensors),
// DOT_PRODUCT (1: the inner loop multiplies packed words with OpSDot, OpUDot
// or OpSUDot, SPV_KHR_integer_dot_product, instead of unpacking them: the
// dot path's kernel for GEMMs too narrow for convolution_integer_dot.comp).
#include "convolution_integer.glsl"

VKDML_SPECIALIZATION(ConvolutionIntegerConstants, VKDML_CONVOLUTION_INTEGER_CONSTANTS)

const uint ROW4 = ROW / 4;  // uvec4 per shared row
const uint KQ = BK / 16;    // 16-byte chunks of k per tile row
const uint WM = BM / TM;    // invocations along m
const uint WN = BN / TN;    // invocations along n

shared uvec4 tileA[BM * ROW4];  // row m: k = 16*q + 4*word + byte
shared uvec4 tileB[BN * ROW4];  // row n: likewise
shared int sums[BM + BN];       // sum over k of each A row, then of each B row

ivec4 unpack(uint word, bool signed_) {
  return ivec4(byteOf(word, 0, signed_), byteOf(word, 1, signed_), byteOf(word, 2, signed_), byteOf(word, 3, signed_));
}

#if DOT_PRODUCT
#include "packed_dot.glsl"
#else
// The product of 4 k values, both unpacked: the scalar path.
int dot4(ivec4 a, ivec4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
#endif

// Packs the 16 bytes of a chunk, pushed in order e = 0..15, into 4 words:
// a shift register, so staging loops need no dynamic vector index and can
// stay rolled (unrolled, they dominate compile time on lavapipe).
void pushByte(inout uvec4 words, inout uint word, uint e, uint value) {
  word |= value << (8 * (e & 3));
  if ((e & 3) == 3) {
    words = uvec4(words.yzw, word);
    word = 0;
  }
}

void main() {
  ConvParams p = ConvParams(pc.paramsAddress);
  const uint t = gl_LocalInvocationID.x;
  const uint WG = gl_WorkGroupSize.x;
  const uint64_t inputAddress = tensorAddress(0);
  const uint64_t inputZeroPointAddress = tensorAddress(1);
  const uint64_t filterAddress = tensorAddress(2);
  const uint64_t filterZeroPointAddress = tensorAddress(3);
  const uint64_t outputAddress = tensorAddress(4);
  const bool inputSigned = INPUT_SIGNED != 0, filterSigned = FILTER_SIGNED != 0;

  const uint M = p.M, Ng = p.groupOutputChannels;
  // This dispatch's chunk of K, all of it unless K_CHUNKED: k in [kBegin, kBegin + Kc).
  const bool chunked = (SPLIT & K_CHUNKED) != 0;
  const uint kBegin = chunked ? p.kBegin : 0u, Kc = chunked ? p.kLength : p.groupK;
  const uint KW = p.kernelW, KHW = p.kernelH * p.kernelW;
  const uint flags = p.flags;
  const bool hasInputZeroPoint = (flags & HAS_INPUT_ZERO_POINT) != 0;
  const bool hasFilterZeroPoint = (flags & HAS_FILTER_ZERO_POINT) != 0;
  // Row sums are needed for the filter zero point, column sums for the input's.
  const bool anySums = hasInputZeroPoint || hasFilterZeroPoint;
  const bool accumulate = (SPLIT & ACCUMULATE) != 0;

  // The input zero point, also the value of every padded position.
  const uint xzBits = hasInputZeroPoint ? loadByte(inputZeroPointAddress) : 0u;
  const int xz = byteOf(xzBits, 0, inputSigned);

  const INDEX_T inS0 = INDEX_T(p.inputStrides[0]), inS1 = INDEX_T(p.inputStrides[1]);
  const INDEX_T inS2 = INDEX_T(p.inputStrides[2]), inS3 = INDEX_T(p.inputStrides[3]);
  const INDEX_T fS0 = INDEX_T(p.filterStrides[0]), fS1 = INDEX_T(p.filterStrides[1]);
  const INDEX_T fS2 = INDEX_T(p.filterStrides[2]), fS3 = INDEX_T(p.filterStrides[3]);
  // The filter's K extent is contiguous when (c, ky, kx) flatten to offset k.
  const bool filterKContiguous = (p.kernelW == 1 || fS3 == 1) && (p.kernelH == 1 || fS2 == INDEX_T(KW)) &&
                                 (p.groupChannels == 1 || fS1 == INDEX_T(KHW));

  // Each invocation stages A row t % BM (WG is a multiple of BM) and
  // computes rows tm + i*WM, columns tn + j*WN: consecutive invocations
  // take consecutive m, so global loads and stores coalesce along ox.
  const uint aRow = t % BM;
  const uint tm = t % WM, tn = t / WM;
  const uint kTiles = Kc / BK + uint(Kc % BK != 0);

  // Tiles over one row of workgroups, or several (GRID_ROWS), whose count
  // could take `tile` past 2^32: the loop ends before (one row never gets
  // that far: the host keeps the tiles per workgroup within the loop budget).
  const bool gridRows = (SPLIT & GRID_ROWS) != 0;
  const uint group = gridRows ? groupIndex() : gl_WorkGroupID.x;
  const uint groups = gridRows ? groupCount() : gl_NumWorkGroups.x;
  for (uint tile = group; tile < p.tiles; tile = gridRows && p.tiles - tile <= groups ? p.tiles : tile + groups) {
    const uint mTile = tile % p.mTiles;
    const uint nTile = (tile / p.mTiles) % p.nTiles;
    const uint g = tile / p.mTiles / p.nTiles;
    const uint m0 = mTile * BM, n0 = nTile * BN;

    // Where this invocation's A row starts in the input.
    // (Bounds as `row < M - m0`: m0 + row may pass 2^32 in the last tile.)
    const uint m = m0 + aRow;
    const bool mValid = aRow < M - m0;
    const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
    const COORD_T iy0 = COORD_T(oy) * COORD_T(p.strideY) - COORD_T(p.padY);
    const COORD_T ix0 = COORD_T(ox) * COORD_T(p.strideX) - COORD_T(p.padX);
    const INDEX_T aBase = INDEX_T(batch) * inS0 + INDEX_T(g * p.groupChannels) * inS1;

    // Accumulators stay in registers: every loop that indexes them is
    // unrolled ([[unroll]]), so every index is a constant.
    int acc[TM * TN];
    [[unroll]] for (uint i = 0; i < TM * TN; ++i) acc[i] = 0;

    for (uint kt = 0; kt < kTiles; ++kt) {
      const uint k0 = kt * BK;
      const uint kLeft = Kc - k0;  // > 0; compared against, never added to, so no overflow

      // Stage A: 16 consecutive k of row aRow per chunk, gathered byte by
      // byte (the im2col has no contiguous k), padded positions = xz.
      for (uint q = t / BM; q < KQ; q += WG / BM) {
        uvec4 words = uvec4(0);
        if (mValid && q * 16 < kLeft) {
          const uint kStart = kBegin + k0 + q * 16;
          const uint count = min(16u, kLeft - q * 16);
          uint c = kStart / KHW, ky = (kStart % KHW) / KW, kx = kStart % KW;
          uint word = 0;
          [[dont_unroll]] for (uint e = 0; e < 16; ++e) {
            uint value = 0;  // k past Kg: 0, which adds nothing to products or sums
            if (e < count) {
              const COORD_T iy = iy0 + COORD_T(ky) * COORD_T(p.dilationY);
              const COORD_T ix = ix0 + COORD_T(kx) * COORD_T(p.dilationX);
              value = xzBits;
              if (inRange(iy, p.inputH) && inRange(ix, p.inputW))
                value = loadByte(inputAddress +
                                 uint64_t(aBase + INDEX_T(c) * inS1 + INDEX_T(iy) * inS2 + INDEX_T(ix) * inS3));
              nextK(c, ky, kx, KW, p.kernelH);
            }
            pushByte(words, word, e, value);
          }
        }
        tileA[aRow * ROW4 + q] = words;
      }

      // Stage B: 16 consecutive k of filter row n per chunk; consecutive
      // invocations take consecutive chunks of a row, so the loads coalesce.
      for (uint u = t; u < BN * KQ; u += WG) {
        const uint bRow = u / KQ, q = u % KQ;
        const uint n = n0 + bRow;
        uvec4 words = uvec4(0);
        if (bRow < Ng - n0 && q * 16 < kLeft) {
          const uint kStart = kBegin + k0 + q * 16;
          const uint count = min(16u, kLeft - q * 16);
          const INDEX_T rowOffset = INDEX_T(g * Ng + n) * fS0;
          const uint64_t rowAddress = filterAddress + uint64_t(rowOffset + INDEX_T(kStart));
          if (filterKContiguous && count == 16 && (rowAddress & 15) == 0) {
            words = Word4Ref(rowAddress).value;
          } else if (filterKContiguous && count == 16 && (rowAddress & 3) == 0) {
            for (uint w = 0; w < 4; ++w) words[w] = WordRef(rowAddress + 4 * w).value;
          } else {
            uint c = kStart / KHW, ky = (kStart % KHW) / KW, kx = kStart % KW;
            uint word = 0;
            [[dont_unroll]] for (uint e = 0; e < 16; ++e) {
              uint value = 0;
              if (e < count) {
                value = loadByte(filterAddress +
                                 uint64_t(rowOffset + INDEX_T(c) * fS1 + INDEX_T(ky) * fS2 + INDEX_T(kx) * fS3));
                nextK(c, ky, kx, KW, p.kernelH);
              }
              pushByte(words, word, e, value);
            }
          }
        }
        tileB[bRow * ROW4 + q] = words;
      }
      barrier();

      // Row and column sums for the zero-point terms: each sum has one owner
      // (the same invocation every step), so no atomics are needed. The
      // first step assigns rather than adds: every invocation has passed the
      // barrier above, so none still reads the previous tile's sums.
      if (anySums)
        for (uint r = t; r < BM + BN; r += WG) {
          int s = 0;
          if (r < BM) {
            for (uint q = 0; q < KQ; ++q) s += byteSum(tileA[r * ROW4 + q], inputSigned);
          } else {
            for (uint q = 0; q < KQ; ++q) s += byteSum(tileB[(r - BM) * ROW4 + q], filterSigned);
          }
          sums[r] = kt == 0 ? s : sums[r] + s;
        }

      // The inner product: 16 k per step, TM x TN accumulators.
      // Not unrolled: each step is already TM*TN*16 products, and unrolling
      // KQ of them only multiplies compile time (lavapipe's most of all).
      [[dont_unroll]] for (uint q = 0; q < KQ; ++q) {
        uvec4 a[TM];
        [[unroll]] for (uint i = 0; i < TM; ++i) a[i] = tileA[(tm + i * WM) * ROW4 + q];
#if DOT_PRODUCT
        uvec4 b[TN];
        [[unroll]] for (uint j = 0; j < TN; ++j) b[j] = tileB[(tn + j * WN) * ROW4 + q];
        [[unroll]] for (uint w = 0; w < 4; ++w)
          [[unroll]] for (uint i = 0; i < TM; ++i)
            [[unroll]] for (uint j = 0; j < TN; ++j) acc[i * TN + j] += dotPacked(a[i][w], b[j][w]);
#else
        for (uint w = 0; w < 4; ++w) {
          ivec4 b[TN];
          [[unroll]] for (uint j = 0; j < TN; ++j) b[j] = unpack(tileB[(tn + j * WN) * ROW4 + q][w], filterSigned);
          [[unroll]] for (uint i = 0; i < TM; ++i) {
            const ivec4 x = unpack(a[i][w], inputSigned);
            [[unroll]] for (uint j = 0; j < TN; ++j) acc[i * TN + j] += dot4(x, b[j]);
          }
        }
#endif
      }
      barrier();
    }

    // Fold in the zero points and store. Per row: where it goes and its sum.
    bool rowValid[TM];
    INDEX_T rowOffset[TM];
    int rowSum[TM];
    [[unroll]] for (uint i = 0; i < TM; ++i) {
      const uint row = tm + i * WM, mo = m0 + row;
      rowValid[i] = row < M - m0;
      const uint oxo = mo % p.outputW, oyo = (mo / p.outputW) % p.outputH, bo = mo / p.outputW / p.outputH;
      rowOffset[i] = INDEX_T(bo) * INDEX_T(p.outputStrides[0]) + INDEX_T(oyo) * INDEX_T(p.outputStrides[2]) +
                     INDEX_T(oxo) * INDEX_T(p.outputStrides[3]);
      rowSum[i] = hasFilterZeroPoint ? sums[row] : 0;
    }
    [[unroll]] for (uint j = 0; j < TN; ++j) {
      const uint bRow = tn + j * WN, n = n0 + bRow;
      if (bRow >= Ng - n0) continue;
      const uint oc = g * Ng + n;
      const int wz = hasFilterZeroPoint
                         ? byteOf(loadByte(filterZeroPointAddress + uint64_t(oc) * p.filterZeroPointStride), 0,
                                  filterSigned)
                         : 0;
      const int columnSum = hasInputZeroPoint ? sums[BM + bRow] : 0;
      const int constantTerm = int(Kc) * xz * wz - xz * columnSum;
      const uint64_t columnAddress = outputAddress + 4 * uint64_t(INDEX_T(oc) * INDEX_T(p.outputStrides[1]));
      [[unroll]] for (uint i = 0; i < TM; ++i)
        if (rowValid[i]) {
          const uint64_t address = columnAddress + 4 * uint64_t(rowOffset[i]);
          const int value = acc[i * TN + j] - wz * rowSum[i] + constantTerm;
          OutputRef(address).value = accumulate ? OutputReadRef(address).value + value : value;
        }
    }
  }
}
