#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_spirv_intrinsics : require
// DML_CONVOLUTION_INTEGER's dot-product path: the implicit GEMM of
// convolution_integer.comp (its header gives the formulas: the same m, n
// and k, the same zero-point expansion, 32-bit two's complement, so any
// order of summation is bit-exact), shaped for packed 4x8-bit dot products:
//
// - each invocation owns TM x TN int32 accumulators in registers, rows and
//   columns in groups of 4 consecutive ones, so that one 16-byte shared read
//   gives 4 rows' (or columns') packed words of one k word;
// - A (the im2col of the input) and B (the filter) are staged through
//   shared memory k-word-major ([k word][row]), 4 k per 32-bit word, so a
//   k word costs TM/4 + TN/4 reads for TM * TN dot products;
// - double-buffered: the global loads of the next K step are issued before
//   the current step's products and written to the other stage after
//   them, one barrier per step; the loads land in registers as raw bytes
//   and are packed only after the products, so nothing waits on them early.
//
// The geometry and the flags are specialization constants (as for the
// cooperative-matrix kernel), so the driver folds the gathers' k stepping
// and range checks: for a 1x1 kernel each byte is one multiply-add away.
//
// Defines: INPUT_SIGNED, FILTER_SIGNED (0: UINT8, 1: INT8), INDEX_BITS (32 or 64).
#include "convolution_integer.glsl"
#include "packed_dot.glsl"

VKDML_SPECIALIZATION(ConvolutionIntegerDotConstants, VKDML_CONVOLUTION_INTEGER_DOT_CONSTANTS)

const uint KQ = BK / 16;                     // 16-byte chunks of k per tile row
const uint WM = BM / TM, WN = BN / TN;       // invocations along m and n
const uint WG = WM * WN;                     // = WORKGROUP_SIZE
const uint A_ITEMS = (BM * KQ + WG - 1) / WG;  // chunks of A each invocation stages per K step
const uint B_ITEMS = (BN * KQ + WG - 1) / WG;
const uint STAGE4 = BK * (BM + BN) / 16;     // uvec4 per stage: A's BK/4 rows of BM words, then B's
const uint KHW = KH * KW;                    // taps

// Two stages; after a tile's K loop, the first holds the partial sums of
// the zero-point terms.
shared uvec4 tiles[2 * STAGE4];

// What every part of main reads: set once at its start.
ConvParams p;
uint64_t inputAddress, filterAddress;
uint xzBits;
INDEX_T inS1, inS2, inS3, fS0, fS1, fS2, fS3;
bool filterKContiguous;
uint kBegin, Kc;

// Specialization constants widened at run time: before SPIR-V 1.4 a
// specialization constant cannot be converted to 64 bits.
COORD_T coordOf(uint v) { return COORD_T(v); }
INDEX_T indexOf(uint v) { return INDEX_T(v); }

void storeWord(uint index, uint word) { tiles[index / 4][index % 4] = word; }
uint sharedWord(uint index) { return tiles[index / 4][index % 4]; }

// Where each of this invocation's A chunks sits in the input: per item,
// the row's first tap and image (set per tile).
COORD_T rowIy0[A_ITEMS], rowIx0[A_ITEMS];
INDEX_T rowBase[A_ITEMS];
bool rowValid[A_ITEMS];
// The next K step's chunks in flight, and this invocation's partial byte
// sums of its chunks (globals: arrays sized by specialization constants
// cannot be parameters).
uint raw[A_ITEMS * 16];
uvec4 words[B_ITEMS];
int sumA[A_ITEMS], sumB[B_ITEMS];

// Gathers this invocation's chunks of A for the K step at k0 (16 k of one
// row each, padded positions = xz, k past the chunk = 0) as raw bytes.
void loadA(uint k0) {
  const uint kLeft = Kc - k0;
  [[unroll]] for (uint i = 0; i < A_ITEMS; ++i) {
    const uint q = (gl_LocalInvocationID.x + i * WG) / BM;
    const bool live = q < KQ && rowValid[i] && q * 16 < kLeft;
    const uint kStart = kBegin + k0 + q * 16;
    const uint count = live ? min(16u, kLeft - q * 16) : 0u;
    uint c = kStart / KHW, ky = (kStart % KHW) / KW, kx = kStart % KW;
    [[unroll]] for (uint e = 0; e < 16; ++e) {
      uint value = 0;
      if (e < count) {
        const COORD_T iy = rowIy0[i] + COORD_T(ky) * coordOf(DILATION_Y);
        const COORD_T ix = rowIx0[i] + COORD_T(kx) * coordOf(DILATION_X);
        value = xzBits;
        if (inRange(iy, p.inputH) && inRange(ix, p.inputW))
          value = loadByte(inputAddress + uint64_t(rowBase[i] + INDEX_T(c) * inS1 + INDEX_T(iy) * inS2 +
                                                   INDEX_T(ix) * inS3));
        nextK(c, ky, kx, KW, KH);
      }
      raw[i * 16 + e] = value;
    }
  }
}

// Loads this invocation's chunks of B (16 k of one filter row each) for the
// K step at k0 of group g: whole words where the row's k are contiguous and
// aligned, else gathered byte by byte.
void loadB(uint k0, uint g, uint n0) {
  const uint kLeft = Kc - k0, Ng = p.groupOutputChannels;
  [[unroll]] for (uint i = 0; i < B_ITEMS; ++i) {
    const uint u = gl_LocalInvocationID.x + i * WG;
    const uint bRow = u / KQ, q = u % KQ;
    words[i] = uvec4(0);
    if (bRow < BN && bRow < Ng - n0 && q * 16 < kLeft) {
      const uint kStart = kBegin + k0 + q * 16;
      const uint count = min(16u, kLeft - q * 16);
      const INDEX_T rowOffset = INDEX_T(g * Ng + n0 + bRow) * fS0;
      const uint64_t rowAddress = filterAddress + uint64_t(rowOffset + INDEX_T(kStart));
      if (filterKContiguous && count == 16 && (rowAddress & 15) == 0) {
        words[i] = Word4Ref(rowAddress).value;
      } else if (filterKContiguous && count == 16 && (rowAddress & 3) == 0) {
        [[unroll]] for (uint w = 0; w < 4; ++w) words[i][w] = WordRef(rowAddress + 4 * w).value;
      } else {
        // Bytes shifted in from the top of the 16, so that every index is
        // a constant (a dynamic one could move `words` out of registers).
        uint c = kStart / KHW, ky = (kStart % KHW) / KW, kx = kStart % KW;
        uvec4 v = uvec4(0);
        [[dont_unroll]] for (uint e = 0; e < 16; ++e) {
          uint value = 0;
          if (e < count) {
            value = loadByte(filterAddress +
                             uint64_t(rowOffset + INDEX_T(c) * fS1 + INDEX_T(ky) * fS2 + INDEX_T(kx) * fS3));
            nextK(c, ky, kx, KW, KH);
          }
          v = (v >> 8) | (uvec4(v.yzw, value) << 24);
        }
        words[i] = v;
      }
    }
  }
}

// Writes the loaded chunks into stage s, adding their byte sums to this
// invocation's partial sums (each item is the same row and chunk of k at
// every step, so each partial sum has one owner).
void storeStage(uint s, bool sums) {
  const uint base = s * STAGE4 * 4;
  [[unroll]] for (uint i = 0; i < A_ITEMS; ++i) {
    const uint u = gl_LocalInvocationID.x + i * WG, row = u % BM, q = u / BM;
    if (q < KQ)
      [[unroll]] for (uint w = 0; w < 4; ++w) {
        const uint word = raw[i * 16 + 4 * w] | (raw[i * 16 + 4 * w + 1] << 8) | (raw[i * 16 + 4 * w + 2] << 16) |
                          (raw[i * 16 + 4 * w + 3] << 24);
        storeWord(base + (4 * q + w) * BM + row, word);
        if (sums) sumA[i] += wordSum(word, INPUT_SIGNED != 0);
      }
  }
  [[unroll]] for (uint i = 0; i < B_ITEMS; ++i) {
    const uint u = gl_LocalInvocationID.x + i * WG, bRow = u / KQ, q = u % KQ;
    if (bRow < BN)
      [[unroll]] for (uint w = 0; w < 4; ++w) {
        storeWord(base + BK / 4 * BM + (4 * q + w) * BN + bRow, words[i][w]);
        if (sums) sumB[i] += wordSum(words[i][w], FILTER_SIGNED != 0);
      }
  }
}

void main() {
  p = ConvParams(pc.paramsAddress);
  const uint t = gl_LocalInvocationID.x;
  inputAddress = tensorAddress(0);
  const uint64_t inputZeroPointAddress = tensorAddress(1);
  filterAddress = tensorAddress(2);
  const uint64_t filterZeroPointAddress = tensorAddress(3);
  const uint64_t outputAddress = tensorAddress(4);
  const bool inputSigned = INPUT_SIGNED != 0, filterSigned = FILTER_SIGNED != 0;

  const uint M = p.M, Ng = p.groupOutputChannels;
  // This dispatch's chunk of K, all of it unless K_CHUNKED: k in [kBegin, kBegin + Kc).
  const bool chunked = (SPLIT & K_CHUNKED) != 0;
  kBegin = chunked ? p.kBegin : 0u;
  Kc = chunked ? p.kLength : p.groupK;
  const uint flags = FLAGS;
  const bool hasInputZeroPoint = (flags & HAS_INPUT_ZERO_POINT) != 0;
  const bool hasFilterZeroPoint = (flags & HAS_FILTER_ZERO_POINT) != 0;
  const bool anySums = hasInputZeroPoint || hasFilterZeroPoint;
  const bool accumulate = (SPLIT & ACCUMULATE) != 0;

  // The input zero point, also the value of every padded position.
  xzBits = hasInputZeroPoint ? loadByte(inputZeroPointAddress) : 0u;
  const int xz = byteOf(xzBits, 0, inputSigned);

  const INDEX_T inS0 = INDEX_T(p.inputStrides[0]);
  inS1 = INDEX_T(p.inputStrides[1]);
  inS2 = INDEX_T(p.inputStrides[2]);
  inS3 = INDEX_T(p.inputStrides[3]);
  fS0 = INDEX_T(p.filterStrides[0]);
  fS1 = INDEX_T(p.filterStrides[1]);
  fS2 = INDEX_T(p.filterStrides[2]);
  fS3 = INDEX_T(p.filterStrides[3]);
  filterKContiguous = (KW == 1 || fS3 == 1) && (KH == 1 || fS2 == indexOf(KW)) &&
                      (p.groupChannels == 1 || fS1 == indexOf(KHW));

  // Invocation t computes the rows 4 * (a * WM + tm) + r and the columns
  // 4 * (b * WN + tn) + r (r < 4): the lanes of a subgroup read
  // consecutive 16-byte groups of A and share B's.
  const uint tm = t % WM, tn = t / WM;
  const uint kTiles = Kc / BK + uint(Kc % BK != 0);

  // Tiles over one row of workgroups, or several (GRID_ROWS), as in
  // convolution_integer.comp.
  const bool gridRows = (SPLIT & GRID_ROWS) != 0;
  const uint group = gridRows ? groupIndex() : gl_WorkGroupID.x;
  const uint groups = gridRows ? groupCount() : gl_NumWorkGroups.x;
  for (uint tile = group; tile < p.tiles; tile = gridRows && p.tiles - tile <= groups ? p.tiles : tile + groups) {
    const uint mTile = tile % p.mTiles;
    const uint nTile = (tile / p.mTiles) % p.nTiles;
    const uint g = tile / p.mTiles / p.nTiles;
    const uint m0 = mTile * BM, n0 = nTile * BN;

    // Where this invocation's A rows start in the input.
    // (Bounds as `row < M - m0`: m0 + row may pass 2^32 in the last tile.)
    [[unroll]] for (uint i = 0; i < A_ITEMS; ++i) {
      const uint row = (t + i * WG) % BM, m = m0 + row;
      rowValid[i] = row < M - m0;
      const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
      rowIy0[i] = COORD_T(oy) * coordOf(STRIDE_Y) - coordOf(PAD_Y);
      rowIx0[i] = COORD_T(ox) * coordOf(STRIDE_X) - coordOf(PAD_X);
      rowBase[i] = INDEX_T(batch) * inS0 + INDEX_T(g * p.groupChannels) * inS1;
    }

    // Accumulators stay in registers: every loop that indexes them is
    // unrolled, so every index is a constant.
    int acc[TM * TN];
    [[unroll]] for (uint i = 0; i < TM * TN; ++i) acc[i] = 0;
    [[unroll]] for (uint i = 0; i < A_ITEMS; ++i) sumA[i] = 0;
    [[unroll]] for (uint i = 0; i < B_ITEMS; ++i) sumB[i] = 0;
    loadA(0);
    loadB(0, g, n0);
    storeStage(0, anySums);
    barrier();
    for (uint kt = 0; kt < kTiles; ++kt) {
      const uint s = kt & 1;
      const bool next = kt + 1 < kTiles;
      if (next) {
        loadA((kt + 1) * BK);
        loadB((kt + 1) * BK, g, n0);
      }
      // The products: per k word, TM/4 reads of A and TN/4 of B. Words
      // unrolled, chunks of 4 words not: unrolling them only multiplies
      // compile time (lavapipe's most of all).
      const uint aBase4 = s * STAGE4 + tm, bBase4 = s * STAGE4 + BK / 16 * BM + tn;
      [[dont_unroll]] for (uint q = 0; q < KQ; ++q) {
        [[unroll]] for (uint w = 0; w < 4; ++w) {
          const uint kw = 4 * q + w;
          uvec4 a[TM / 4], b[TN / 4];
          [[unroll]] for (uint i = 0; i < TM / 4; ++i) a[i] = tiles[aBase4 + kw * (BM / 4) + i * WM];
          [[unroll]] for (uint j = 0; j < TN / 4; ++j) b[j] = tiles[bBase4 + kw * (BN / 4) + j * WN];
          [[unroll]] for (uint i = 0; i < TM; ++i)
            [[unroll]] for (uint j = 0; j < TN; ++j) acc[i * TN + j] += dotPacked(a[i / 4][i % 4], b[j / 4][j % 4]);
        }
      }
      if (next) storeStage(s ^ 1, anySums);
      barrier();
    }

    // The zero-point terms' row and column sums: each invocation's partial
    // sums into the first stage (every invocation has passed the last
    // barrier: none reads it any more), then each row's and column's total.
    // Row r's chunk q is A item index q * BM + r, column n's is n * KQ + q.
    if (anySums) {
      [[unroll]] for (uint i = 0; i < A_ITEMS; ++i)
        if (t + i * WG < BM * KQ) storeWord(t + i * WG, uint(sumA[i]));
      [[unroll]] for (uint i = 0; i < B_ITEMS; ++i)
        if (t + i * WG < BN * KQ) storeWord(BM * KQ + t + i * WG, uint(sumB[i]));
      barrier();
    }

    // Fold in the zero points and store. Per row: where it goes and its sum.
    bool outRowValid[TM];
    INDEX_T rowOffset[TM];
    int rowSum[TM];
    [[unroll]] for (uint i = 0; i < TM; ++i) {
      const uint row = 4 * ((i / 4) * WM + tm) + i % 4, mo = m0 + row;
      outRowValid[i] = row < M - m0;
      const uint oxo = mo % p.outputW, oyo = (mo / p.outputW) % p.outputH, bo = mo / p.outputW / p.outputH;
      rowOffset[i] = INDEX_T(bo) * INDEX_T(p.outputStrides[0]) + INDEX_T(oyo) * INDEX_T(p.outputStrides[2]) +
                     INDEX_T(oxo) * INDEX_T(p.outputStrides[3]);
      rowSum[i] = 0;
      if (hasFilterZeroPoint)
        [[unroll]] for (uint q = 0; q < KQ; ++q) rowSum[i] += int(sharedWord(q * BM + row));
    }
    [[unroll]] for (uint j = 0; j < TN; ++j) {
      const uint bRow = 4 * ((j / 4) * WN + tn) + j % 4, n = n0 + bRow;
      if (bRow >= Ng - n0) continue;
      const uint oc = g * Ng + n;
      const int wz = hasFilterZeroPoint
                         ? byteOf(loadByte(filterZeroPointAddress + uint64_t(oc) * p.filterZeroPointStride), 0,
                                  filterSigned)
                         : 0;
      int columnSum = 0;
      if (hasInputZeroPoint)
        [[unroll]] for (uint q = 0; q < KQ; ++q) columnSum += int(sharedWord(BM * KQ + bRow * KQ + q));
      const int constantTerm = int(Kc) * xz * wz - xz * columnSum;
      const uint64_t columnAddress = outputAddress + 4 * uint64_t(INDEX_T(oc) * INDEX_T(p.outputStrides[1]));
      [[unroll]] for (uint i = 0; i < TM; ++i)
        if (outRowValid[i]) {
          const uint64_t address = columnAddress + 4 * uint64_t(rowOffset[i]);
          const int value = acc[i * TN + j] - wz * rowSum[i] + constantTerm;
          OutputRef(address).value = accumulate ? OutputReadRef(address).value + value : value;
        }
    }
    // The next tile's first stage overwrites the sums.
    barrier();
  }
}
