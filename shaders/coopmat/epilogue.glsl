// convolution_integer_coopmat.comp: the zero-point sums and the epilogue,
// which folds them into the accumulators and stores the output.

// Before the tile's first step: the sums start at 0, and each column's
// filter zero point, flipped like the filter, is read once per tile.
void beginSums() {
  if (NEED_ROW_SUMS) {
    for (uint row = t; row < BM; row += WG) rowSums[row] = 0;
    if (t < BN) {
      uint wz = 0;
      if (HAS_WZ && t < Ng - n0)
        wz = loadByte(filterZeroPointAddress + uint64_t(g * Ng + n0 + t) * p.filterZeroPointStride);
      colZeroPoints[t] = bitfieldExtract(int(wz ^ (FILTER_FLIP & 0xFFu)), 0, 8);
    }
  }
  if (NEED_COL_SUMS && t < BN) colSums[t] = 0;
}

// After the last: each row and column has several contributors.
void addSums() {
  if (NEED_ROW_SUMS) {
    if (A_PAIRS) {
      [[unroll]] for (uint r = 0; r < A_PAIR_CHUNKS; ++r)
        IN_TILE_CHUNK(r, 4, atomicAdd(rowSums[(t + r * WG) / 4], rowPartial[r]))
    } else if (A_IN_SCRATCH) {
      [[unroll]] for (uint r = 0; r < A_CHUNKS; ++r)
        IN_TILE_A_CHUNK(r, atomicAdd(rowSums[(t + r * WG) / 2], rowPartial[r]))
    } else
      [[unroll]] for (uint j = 0; j < 4; ++j) atomicAdd(rowSums[quadTileRow(aQuadRow, j)], rowPartial[j]);
  }
  if (NEED_COL_SUMS && stagesB)
    [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r) atomicAdd(colSums[(t + r * WG) / 2], colPartial[r]);
}

// The scratch value at row `offset` (from the rows in scratch) and scratch
// column c, with the zero points folded in. A term whose sums were not
// taken is 0 (its zero point is).
int corrected(uint scratch, uint offset, uint c, int rowSum, int wz, int colSum) {
  return int(tiles[scratch + c * SCRATCH_COLUMN4 + offset / 4][offset % 4]) +
         (NEED_ROW_SUMS ? (NEED_COL_SUMS ? int(Kg) * xzFlipped - rowSum : -rowSum) * wz : 0) -
         (NEED_COL_SUMS ? xzFlipped * colSum : 0);
}

// Likewise for the 4 columns c.. of scratch row `row`, where the pass is
// row-major (channel quads: COOPMAT_SCRATCH_ROW4).
ivec4 corrected4(uint scratch, uint row, uint c, int rowSum, ivec4 wz, ivec4 colSum) {
  return ivec4(tiles[scratch + row * SCRATCH_ROW4 + c / 4]) +
         (NEED_ROW_SUMS ? (NEED_COL_SUMS ? int(Kg) * xzFlipped - rowSum : -rowSum) * wz : ivec4(0)) -
         (NEED_COL_SUMS ? xzFlipped * colSum : ivec4(0));
}

// Where the output's pixel m lies (in int32, from its channel 0).
INDEX_T outputPixel(uint m) {
  const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
  return INDEX_T(batch) * INDEX_T(p.outputStrides[0]) + INDEX_T(oy) * INDEX_T(p.outputStrides[2]) +
         INDEX_T(ox) * INDEX_T(p.outputStrides[3]);
}

// Per warp, 32 rows x 16 columns at a time through shared memory
// (column-major, SCRATCH_COLUMN4 apart). Where the output allows
// (OUTPUT_QUADS, a 16-byte aligned base) each lane stores 4 consecutive m of
// a channel as one 16-byte word, 8 lanes a whole line; where its channels
// lie innermost (OUTPUT_CHANNEL_QUADS, an aligned base) 4 consecutive
// channels of an m, 4 lanes a pixel's 16 channels of the pass, read from
// scratch stored row-major (the pass's rows 20 words apart, each 8 lanes'
// reads two rows 4 apart: distinct banks); otherwise
// each lane 1 m, each store instruction 32 consecutive m of a channel, or
// where the channels lie innermost (OUTPUT_CHANNELS_INNERMOST) 4 m's 8
// consecutive channels. These loops are
// unrolled like every loop that indexes `acc` (FRAGMENT_LOOP): a dynamic
// index would move the accumulators out of registers.
//
// Tiles of 96 rows (FM 3, A in scratch): each warp's last pass holds one
// fragment, the first 16 of its 32 rows; the other 16 belong to the next
// warp or lie past the tile, and their row sums are not read.
// Channel quads: the pass's row that lane stores in its e-th store, e < 4
// (lanes 4k..4k+3 one row, rows k / 2 + 4 (k % 2) + 8e).
uint quadPassRow(uint e) { return lane / 8 + 4 * ((lane / 4) % 2) + 8 * e; }
#if FM == 3
#define IN_PASS(ip, passRow, inM) ((inM) && (2 * (ip) + 1 < FM || (passRow) < 16))
#define ROW_SUM(row) rowSums[min(row, BM - 1)]
#else
#define IN_PASS(ip, passRow, inM) (inM)
#define ROW_SUM(row) rowSums[row]
#endif
void storeOutput() {
  const uint scratch = warp * SCRATCH_WARP4;
  // Read once: a parameter read between output stores would be repeated
  // after each (the stores might alias the parameter block).
  const INDEX_T outputChannelStride = INDEX_T(p.outputStrides[1]);
  const uint columnsLeft = Ng - n0;
  const bool quadStores = OUTPUT_QUADS && !SPLIT_K && (uint(outputAddress) & 15u) == 0;
  const bool channelQuads = OUTPUT_CHANNEL_QUADS && !SPLIT_K && (uint(outputAddress) & 15u) == 0;
  FRAGMENT_LOOP for (uint ip = 0; ip < (FM + 1) / 2; ++ip) {
    // m0 + rowBase + 0..31 are its m (rowBase a multiple of 32 where rows interleave).
    const uint rowBase = (warpM * FM + 2 * ip) * 16;
    // This lane's first m: rowBase + lane, or the quad's first where quadStores.
    const uint mQuad = lane % 8, quadGroup = lane / 8;
    const uint row = rowBase + lane;
    const uint m = m0 + (quadStores ? rowBase + 4 * mQuad : tileRowM(row));
    // For quads: all 4 (M % 4 == 0).
    const bool valid = IN_PASS(ip, quadStores ? 4 * mQuad : lane, m - m0 < M - m0);
    const INDEX_T outRow = outputPixel(m) + INDEX_T(g * Ng + n0) * outputChannelStride;
    // Along the channels: where the pass's rows this lane stores lie (rows
    // lane / 4 + 8e with quads, lane / 8 + 4e without), worked out once for
    // all of its columns.
    const bool alongChannels = channelQuads || (OUTPUT_CHANNELS_INNERMOST && !quadStores);
    const uint laneRows = channelQuads ? 4 : 8;
    INDEX_T pixelAt[8];
    [[unroll]] for (uint e = 0; e < 8; ++e)
      if (alongChannels && e < laneRows)
        pixelAt[e] = outputPixel(m0 + tileRowM(rowBase + (channelQuads ? quadPassRow(e) : lane / 8 + 4 * e))) +
                     INDEX_T(g * Ng + n0);
    FRAGMENT_LOOP for (uint j = 0; j < FN; ++j) {
      // The warp's scratch is its own: only its first use waits for every
      // warp (the staging buffers it overlaps are no longer read, the sums
      // are complete), later ones for the warp's own reads.
      if (ip == 0 && j == 0)
        barrier();
      else
        WARP_BARRIER();
      TIMELINE_PASS_START(ip, j);
      // Each fragment at its rows (FRAG_M / 4 uvec4 of a column) and columns.
#if FM == 3
      const uint passFragments = 2 * ip + 1 < FM ? 2 : 1;
#else
      const uint passFragments = 2;
#endif
      [[unroll]] for (uint h = 0; h < passFragments; ++h)
        [[unroll]] for (uint si = 0; si < SUB_M; ++si)
          [[unroll]] for (uint sj = 0; sj < SUB_N; ++sj)
            if (channelQuads)
              STORE_ACC_ROWS(acc[accIndex(2 * ip + h, j, si, sj)],
                             scratch + (16 * h + si * FRAG_M) * SCRATCH_ROW4 + sj * (FRAG_N / 4), SCRATCH_ROW4);
            else
              STORE_ACC(acc[accIndex(2 * ip + h, j, si, sj)],
                        scratch + 4 * h + si * (FRAG_M / 4) + sj * FRAG_N * SCRATCH_COLUMN4, SCRATCH_COLUMN4);
      WARP_BARRIER();
      const uint column0 = (warpN * FN + j) * 16;
      if (quadStores) {
        // The tile row (from rowBase) of m's quad element e.
        uvec4 quadRow;
        [[unroll]] for (uint e = 0; e < 4; ++e) quadRow[e] = ROWS_INTERLEAVED ? mQuad + 8 * e : 4 * mQuad + e;
        ivec4 rowSum4 = ivec4(0);
        if (NEED_ROW_SUMS)
          [[unroll]] for (uint e = 0; e < 4; ++e) rowSum4[e] = ROW_SUM(rowBase + quadRow[e]);
#if WARPS == 4
        // On 4-warp tiles the pass reads all its values first (every column
        // of the tile has its sums and zero point, past Ng too), then
        // stores: their epilogues wait on fewer reads. On 8 and 16 warps
        // the driver's schedule lost more than that, and their code stays
        // as it was (bench/results/gemm_limits.md, "each pass's values read
        // before its stores").
        ivec4 values[4];
        [[unroll]] for (uint q = 0; q < 4; ++q) {
          const uint c = 4 * q + quadGroup, column = column0 + c;
          const int wz = NEED_ROW_SUMS ? colZeroPoints[column] : 0, colSum = NEED_COL_SUMS ? colSums[column] : 0;
          [[unroll]] for (uint e = 0; e < 4; ++e)
            values[q][e] = corrected(scratch, quadRow[e], c, rowSum4[e], wz, colSum);
        }
#endif
        [[unroll]] for (uint q = 0; q < 4; ++q) {
          const uint c = 4 * q + quadGroup, column = column0 + c;
          if (!valid || column >= columnsLeft) continue;
#if WARPS == 4
          ivec4 value = values[q];
#else
          const int wz = NEED_ROW_SUMS ? colZeroPoints[column] : 0, colSum = NEED_COL_SUMS ? colSums[column] : 0;
          ivec4 value;
          [[unroll]] for (uint e = 0; e < 4; ++e) value[e] = corrected(scratch, quadRow[e], c, rowSum4[e], wz, colSum);
#endif
          const uint64_t address = outputAddress + 4 * uint64_t(outRow + INDEX_T(column) * outputChannelStride);
          if (ACCUMULATE_OUTPUT) value += Output4ReadRef(address).value;
          Output4Ref(address).value = value;
        }
      } else if (channelQuads) {
        // Lane: channels c0.. of the pass's rows quadPassRow(e); each store
        // instruction 8 pixels' 64 consecutive bytes. Ng % 4 == 0: a quad
        // lies wholly inside the group's channels or past them.
        const uint c0 = 4 * (lane % 4), column = column0 + c0;
        if (column < columnsLeft) {
          ivec4 wz4 = ivec4(0), colSum4 = ivec4(0);
          [[unroll]] for (uint q = 0; q < 4; ++q) {
            if (NEED_ROW_SUMS) wz4[q] = colZeroPoints[column + q];
            if (NEED_COL_SUMS) colSum4[q] = colSums[column + q];
          }
          [[unroll]] for (uint e = 0; e < 4; ++e) {
            const uint passRow = quadPassRow(e), pixel = m0 + tileRowM(rowBase + passRow);
            if (!IN_PASS(ip, passRow, pixel - m0 < M - m0)) continue;
            const int rowSum = NEED_ROW_SUMS ? ROW_SUM(rowBase + passRow) : 0;
            ivec4 value = corrected4(scratch, passRow, c0, rowSum, wz4, colSum4);
            const uint64_t address = outputAddress + 4 * uint64_t(pixelAt[e] + INDEX_T(column));
            if (ACCUMULATE_OUTPUT) value += Output4ReadRef(address).value;
            Output4Ref(address).value = value;
          }
        }
      } else if (OUTPUT_CHANNELS_INNERMOST) {
        // Lane: channels lane % 8 and 8 + lane % 8 of the pass's rows lane / 8 + 4e.
        [[unroll]] for (uint e = 0; e < 8; ++e) {
          const uint passRow = lane / 8 + 4 * e, pixel = m0 + tileRowM(rowBase + passRow);
          if (!IN_PASS(ip, passRow, pixel - m0 < M - m0)) continue;
          const int rowSum = NEED_ROW_SUMS ? ROW_SUM(rowBase + passRow) : 0;
          const INDEX_T outPixel = pixelAt[e];
          [[unroll]] for (uint h = 0; h < 2; ++h) {
            const uint c = lane % 8 + 8 * h, column = column0 + c;
            if (column >= columnsLeft) continue;
            const int wz = NEED_ROW_SUMS ? colZeroPoints[column] : 0, colSum = NEED_COL_SUMS ? colSums[column] : 0;
            const int value = corrected(scratch, passRow, c, rowSum, wz, colSum);
            const uint64_t address = outputAddress + 4 * uint64_t(outPixel + INDEX_T(column));
            if (SPLIT_K)
              atomicAdd(OutputAtomicRef(address).value, value);
            else
              OutputRef(address).value = ACCUMULATE_OUTPUT ? OutputReadRef(address).value + value : value;
          }
        }
      } else {
        const int rowSum = NEED_ROW_SUMS ? ROW_SUM(row) : 0;
        [[unroll]] for (uint c = 0; c < 16; ++c) {
          const uint column = column0 + c;
          if (!valid || column >= columnsLeft) continue;
          const int wz = NEED_ROW_SUMS ? colZeroPoints[column] : 0, colSum = NEED_COL_SUMS ? colSums[column] : 0;
          const int value = corrected(scratch, lane, c, rowSum, wz, colSum);
          const uint64_t address = outputAddress + 4 * uint64_t(outRow + INDEX_T(column) * outputChannelStride);
          if (SPLIT_K)
            atomicAdd(OutputAtomicRef(address).value, value);
          else
            OutputRef(address).value = ACCUMULATE_OUTPUT ? OutputReadRef(address).value + value : value;
        }
      }
      TIMELINE_PASS_END(ip * FN + j);
    }
  }
}
