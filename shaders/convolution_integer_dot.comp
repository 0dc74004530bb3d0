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
// - A is staged in quads of 4 rows x 4 k, 4 consecutive rows per lane, so a
//   warp's load reads one tap of 128 consecutive m: where those are 4
//   consecutive input bytes (INPUT_ROWS_CONTIGUOUS) one aligned word per k,
//   two where padding shifts the tap off a word boundary, then a 4x4 byte
//   transpose; otherwise 16 byte gathers. Either way a quad is one 16-byte
//   shared store;
// - double-buffered: the global loads of the next K step are issued before
//   the current step's products and written to the other stage after
//   them, one barrier per step; the loads land in registers as loaded (raw
//   words or bytes) and are combined only after the products, so nothing
//   waits on them early.
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
const uint A_QUADS = (BM / 4 * (BK / 4) + WG - 1) / WG;  // quads of A each invocation stages per K step
const uint B_ITEMS = (BN * KQ + WG - 1) / WG;
const uint STAGE4 = BK * (BM + BN) / 16;     // uvec4 per stage: A's BK/4 rows of BM words, then B's
const uint KHW = KH * KW;                    // taps
const bool ROWS_CONTIGUOUS = (FLAGS & INPUT_ROWS_CONTIGUOUS) != 0;
const bool Y_IN_RANGE = (FLAGS & TAPS_Y_IN_RANGE) != 0;
const bool X_IN_RANGE = (FLAGS & TAPS_X_IN_RANGE) != 0;

// Two stages; after a tile's K loop, the first holds the partial sums of
// the zero-point terms.
shared uvec4 tiles[2 * STAGE4];

// What every part of main reads: set once at its start.
ConvParams p;
uint64_t inputAddress, filterAddress;
uint xzBits, xzWord;
INDEX_T inS1, inS2, inS3, fS0, fS1, fS2, fS3;
bool filterKContiguous;
uint kBegin, Kc;

// Specialization constants widened at run time: before SPIR-V 1.4 a
// specialization constant cannot be converted to 64 bits.
COORD_T coordOf(uint v) { return COORD_T(v); }
INDEX_T indexOf(uint v) { return INDEX_T(v); }

void storeWord(uint index, uint word) { tiles[index / 4][index % 4] = word; }
uint sharedWord(uint index) { return tiles[index / 4][index % 4]; }

// Quad q of this invocation: rows 4 * (u % (BM/4)) + j (j < 4) and k word
// u / (BM/4) of each K step, u = t + q * WG. Where its rows take their taps
// (set per tile): per row, the input offset of tap (0, 0, 0) and its
// coordinates; contiguous rows need row 0 alone, with the x padding left
// to each tap's shift (as in the cooperative-matrix kernel, stage.glsl).
COORD_T iy0[A_QUADS * 4], ix0[A_QUADS * 4];
INDEX_T pixelBase[A_QUADS * 4];
bool rowValid[A_QUADS * 4];
// The next K step's quads in flight, as loaded: contiguous rows, per k i
// the aligned words at and after its 4 bytes (raw[16q + i], raw[16q + 4 + i])
// and the byte shift (raw[16q + 8 + i]); else byte (k i, row j) at
// raw[16q + 4i + j]. B's chunks: 16 k of one filter row each. And this
// invocation's partial byte sums of its rows and columns (globals: arrays
// sized by specialization constants cannot be parameters).
uint raw[A_QUADS * 16];
uint quadCount[A_QUADS];  // k of each quad below the chunk's end (0 for rows past M)
uvec4 words[B_ITEMS];
int sumA[A_QUADS * 4], sumB[B_ITEMS];

// Loads this invocation's quads of A for the K step at k0 (padded positions
// = xz, k past the chunk and rows past M = 0).
void loadA(uint k0) {
  const uint kLeft = Kc - k0;
  [[unroll]] for (uint q = 0; q < A_QUADS; ++q) {
    const uint kw = (gl_LocalInvocationID.x + q * WG) / (BM / 4);
    const bool live = kw < BK / 4 && 4 * kw < kLeft && rowValid[4 * q];
    quadCount[q] = live ? min(4u, kLeft - 4 * kw) : 0u;
    const uint kStart = kBegin + k0 + 4 * kw;
    uint c = kStart / KHW, ky = (kStart % KHW) / KW, kx = kStart % KW;
    [[unroll]] for (uint i = 0; i < 4; ++i) {
      const bool kValid = i < quadCount[q];
      const uint dy = ky * DILATION_Y, dx = kx * DILATION_X;
      if (ROWS_CONTIGUOUS) {
        // Rows of whole words, 4-byte aligned: each word lies wholly inside
        // or outside the row. INDEX_T offsets wrap (the low word's may lie
        // below 0, in the padding) but are used only in range.
        const int xOff = int(dx) - int(PAD_X), xAligned = xOff & ~3;
        const COORD_T x0 = ix0[4 * q] + COORD_T(xAligned);
        const bool rowIn = kValid && (Y_IN_RANGE || inRange(iy0[4 * q] + COORD_T(dy), p.inputH));
        const INDEX_T offset =
            pixelBase[4 * q] + INDEX_T(c) * inS1 + INDEX_T(dy) * inS2 + INDEX_T(COORD_T(xAligned));
        raw[16 * q + i] =
            rowIn && (X_IN_RANGE || inRange(x0, p.inputW)) ? WordRef(inputAddress + uint64_t(offset)).value : xzWord;
        raw[16 * q + 4 + i] = rowIn && (xOff & 3) != 0 && (X_IN_RANGE || inRange(x0 + 4, p.inputW))
                                  ? WordRef(inputAddress + uint64_t(offset + 4)).value
                                  : xzWord;
        raw[16 * q + 8 + i] = kValid ? uint(xOff & 3) * 8 : 32u;  // 32: zero
      } else {
        const INDEX_T tap = INDEX_T(c) * inS1 + INDEX_T(dy) * inS2 + INDEX_T(dx) * inS3;
        [[unroll]] for (uint j = 0; j < 4; ++j) {
          const uint r = 4 * q + j;
          const bool inside = (Y_IN_RANGE || inRange(iy0[r] + COORD_T(dy), p.inputH)) &&
                              (X_IN_RANGE || inRange(ix0[r] + COORD_T(dx), p.inputW));
          raw[16 * q + 4 * i + j] = !kValid || !rowValid[r] ? 0u
                                    : inside                ? loadByte(inputAddress + uint64_t(pixelBase[r] + tap))
                                                            : xzBits;
        }
      }
      nextK(c, ky, kx, KW, KH);
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

// Writes the loaded quads and chunks into stage s, adding their byte sums
// to this invocation's partial sums (each quad and chunk is the same rows
// and k of every step, so each partial sum has one owner).
void storeStage(uint s, bool sums) {
  const uint base = s * STAGE4 * 4;
  [[unroll]] for (uint q = 0; q < A_QUADS; ++q) {
    const uint u = gl_LocalInvocationID.x + q * WG, rq = u % (BM / 4), kw = u / (BM / 4);
    if (kw < BK / 4) {
      uvec4 rows;  // rows 4 * rq + j, k word kw
      if (ROWS_CONTIGUOUS) {
        uvec4 k4;  // k i of the 4 rows; the shift 32 (k past the chunk) gives 0
        [[unroll]] for (uint i = 0; i < 4; ++i) {
          const uint shift = raw[16 * q + 8 + i];
          k4[i] = shift == 0 ? raw[16 * q + i]
                  : shift == 32 ? 0u
                                : (raw[16 * q + i] >> shift) | (raw[16 * q + 4 + i] << (32 - shift));
        }
        rows = transposeBytes(k4);
      } else {
        [[unroll]] for (uint j = 0; j < 4; ++j)
          rows[j] = raw[16 * q + j] | (raw[16 * q + 4 + j] << 8) | (raw[16 * q + 8 + j] << 16) |
                    (raw[16 * q + 12 + j] << 24);
      }
      tiles[base / 4 + kw * (BM / 4) + rq] = rows;
      if (sums) [[unroll]] for (uint j = 0; j < 4; ++j) sumA[4 * q + j] += wordSum(rows[j], INPUT_SIGNED != 0);
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
  xzWord = xzBits * 0x01010101u;
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
    [[unroll]] for (uint r = 0; r < A_QUADS * 4; ++r) {
      const uint row = 4 * ((t + r / 4 * WG) % (BM / 4)) + r % 4, m = m0 + row;
      rowValid[r] = row < M - m0;
      const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
      iy0[r] = COORD_T(oy) * coordOf(STRIDE_Y) - coordOf(PAD_Y);
      ix0[r] = COORD_T(ox) * coordOf(STRIDE_X) - coordOf(ROWS_CONTIGUOUS ? 0u : PAD_X);
      pixelBase[r] = INDEX_T(batch) * inS0 + INDEX_T(g * p.groupChannels) * inS1 + INDEX_T(iy0[r]) * inS2 +
                     INDEX_T(ix0[r]) * inS3;  // wraps in the padding: used only in range
    }

    // Accumulators stay in registers: every loop that indexes them is
    // unrolled, so every index is a constant.
    int acc[TM * TN];
    [[unroll]] for (uint i = 0; i < TM * TN; ++i) acc[i] = 0;
    [[unroll]] for (uint i = 0; i < A_QUADS * 4; ++i) sumA[i] = 0;
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
    // Row r's share of k word w is at w * BM + r (quad u = w * BM/4 + r/4),
    // column n's chunk q at A_SUMS + n * KQ + q.
    const uint A_SUMS = BK / 4 * BM;
    if (anySums) {
      [[unroll]] for (uint q = 0; q < A_QUADS; ++q)
        if (t + q * WG < A_SUMS / 4)
          [[unroll]] for (uint j = 0; j < 4; ++j) storeWord(4 * (t + q * WG) + j, uint(sumA[4 * q + j]));
      [[unroll]] for (uint i = 0; i < B_ITEMS; ++i)
        if (t + i * WG < BN * KQ) storeWord(A_SUMS + t + i * WG, uint(sumB[i]));
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
        [[unroll]] for (uint w = 0; w < BK / 4; ++w) rowSum[i] += int(sharedWord(w * BM + row));
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
        [[unroll]] for (uint q = 0; q < KQ; ++q) columnSum += int(sharedWord(A_SUMS + bRow * KQ + q));
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
