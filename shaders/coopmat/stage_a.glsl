// convolution_integer_coopmat.comp: staging A, the im2col matrix, gathered
// from the input (stage.glsl describes the quads).

// k i of A quad q, at (c, ky, kx): the tap's offset from the quad's
// pixelBase is the same for its 4 rows.
void loadAK(uint q, uint i, uint c, uint ky, uint kx) {
  const uint dy = ky * DILATION_Y, dx = kx * DILATION_X;
  const bool kValid = i < staged.aCount[q];
  if (ROWS_STRIDE2) {
    // x = 2 * ox from a multiple of 8, inside the row (2 * OW <= W): both words.
    const bool rowIn = kValid && (Y_IN_RANGE || inRange(iy0[0] + COORD_T(dy), p.inputH));
    const INDEX_T offset = pixelBase[0] + INDEX_T(c) * inS1 + INDEX_T(dy) * inS2;
    staged.aLow[q][i] = rowIn ? WordRef(inputAddress + uint64_t(offset)).value : xzWord;
    staged.aHigh[q][i] = rowIn ? WordRef(inputAddress + uint64_t(offset + 4)).value : xzWord;
    staged.aShift[q][i] = 0;
  } else if (ROWS_CONTIGUOUS) {
    const int xOff = int(dx) - int(PAD_X), xAligned = xOff & ~3;
    const COORD_T x0 = ix0[0] + COORD_T(xAligned);
    const bool rowIn = kValid && (Y_IN_RANGE || inRange(iy0[0] + COORD_T(dy), p.inputH));
    // INDEX_T offsets wrap: the low word's may lie below 0 (padding).
    const INDEX_T offset = pixelBase[0] + INDEX_T(c) * inS1 + INDEX_T(dy) * inS2 + INDEX_T(COORD_T(xAligned));
    staged.aLow[q][i] =
        rowIn && (X_IN_RANGE || inRange(x0, p.inputW)) ? WordRef(inputAddress + uint64_t(offset)).value : xzWord;
    // The second word, at offset + 4, only where the 4 bytes straddle two and
    // the next lane's quad does not continue the row (its first word is this one).
    staged.aHigh[q][i] = rowIn && (xOff & 3) != 0 && !highFromNext && (X_IN_RANGE || inRange(x0 + 4, p.inputW))
                     ? WordRef(inputAddress + uint64_t(offset + 4)).value
                     : xzWord;
    staged.aShift[q][i] = uint(xOff & 3) * 8;
  } else {
    const INDEX_T tap = INDEX_T(c) * inS1 + INDEX_T(dy) * inS2 + INDEX_T(dx) * inS3;
    uint word = 0;
    [[unroll]] for (uint j = 0; j < 4; ++j) {
      const bool inside = kValid && rowValid[j] && (Y_IN_RANGE || inRange(iy0[j] + COORD_T(dy), p.inputH)) &&
                          (X_IN_RANGE || inRange(ix0[j] + COORD_T(dx), p.inputW));
      const uint value = inside ? loadByte(inputAddress + uint64_t(pixelBase[j] + tap)) : xzBits;
      word |= value << (8 * j);
    }
    staged.aLow[q][i] = word;
    staged.aShift[q][i] = 0;
  }
}

// Every step loaded lies below kTiles * BK, which is Kg for whole steps.
void loadAStep(uint kt) {
  [[unroll]] for (uint q = 0; q < A_QUADS; ++q) {
    const uint kq = kt * BK + 4 * (aQuadK + q * WARPS);
    staged.aCount[q] = WHOLE_STEPS ? quadK : kq < Kg ? min(quadK, Kg - kq) : 0u;
    uint c = quadC[q], ky = quadKy[q], kx = quadKx[q];
    loadAK(q, 0, c, ky, kx);
    stepK(c, ky, kx);
    loadAK(q, 1, c, ky, kx);
    stepK(c, ky, kx);
    loadAK(q, 2, c, ky, kx);
    stepK(c, ky, kx);
    loadAK(q, 3, c, ky, kx);
    // The quad's first k of the next step: + BK as a step of (c, ky, kx), without dividing.
    const uint STEP_C = BK / KHW, STEP_KY = (BK % KHW) / KW, STEP_KX = BK % KW;
    if (KW > 1) {
      quadKx[q] += STEP_KX;
      if (quadKx[q] >= KW) {
        quadKx[q] -= KW;
        if (KH > 1)
          ++quadKy[q];
        else
          ++quadC[q];
      }
    }
    if (KH > 1) {
      quadKy[q] += STEP_KY;
      if (quadKy[q] >= KH) {
        quadKy[q] -= KH;
        ++quadC[q];
      }
    }
    quadC[q] += STEP_C;
  }
}

// The 4 bytes of k i of quad q: funnel-shifted (stride 2: the even bytes
// of both words), flipped to INT8, 0 past M and Kg. The high word: the next
// lane's low word where its quad continues the row.
uint aWord(uint q, uint i, uvec4 nextLow) {
  if (i >= staged.aCount[q]) return 0u;
  const uint low = staged.aLow[q][i], high = highFromNext && !ROWS_STRIDE2 ? nextLow[i] : staged.aHigh[q][i];
  const uint word = ROWS_STRIDE2 ? (low & 0xFFu) | ((low >> 8) & 0xFF00u) | ((high << 16) & 0xFF0000u) |
                                       ((high << 8) & 0xFF000000u)
                    : staged.aShift[q][i] == 0 ? low
                                               : (low >> staged.aShift[q][i]) | (high << (32 - staged.aShift[q][i]));
  return (word ^ INPUT_FLIP) & (ROWS_WORDS ? ~0u : rowMask);
}

// Stores the registers into buffer `b` and adds them to the sums.
void storeAStep(uint b) {
  const uint base = b * STAGE4;
  [[unroll]] for (uint q = 0; q < A_QUADS; ++q) {
    const uvec4 nextLow = subgroupShuffleDown(staged.aLow[q], 1);  // in uniform control flow
    const uvec4 rows =
        transposeBytes(uvec4(aWord(q, 0, nextLow), aWord(q, 1, nextLow), aWord(q, 2, nextLow), aWord(q, 3, nextLow)));
    const uint kQuad = aQuadK + q * WARPS;
    [[unroll]] for (uint j = 0; j < 4; ++j) {
      tiles[base + quadTileRow(aQuadRow, j) * ROW4 + kQuad / 4][kQuad % 4] = rows[j];
      if (ROW_SUMS_ON) rowPartial[j] += signedByteSum(rows[j]);
    }
  }
}
