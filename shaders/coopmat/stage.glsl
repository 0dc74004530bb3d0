// convolution_integer_coopmat.comp: staging, from global memory through
// registers into shared memory, where the operands are not packed.
//
// A is staged in quads of 4 rows x 4 k: where 4 consecutive m are 4
// consecutive input bytes (ROWS_CONTIGUOUS) a quad is aligned word loads,
// funnel shifts and a 4x4 byte transpose; where they are the even bytes of
// 8 (ROWS_STRIDE2), two aligned word loads per k; otherwise 16 byte gathers. Warp w
// stages k quad w of all 32 row quads, lane l row quad l (64-row tiles: k
// quads 2w and 2w + 1, 16 row quads each, lanes 0-15 and 16-31): each load
// instruction reads one tap of 128 consecutive m, a few cache lines (k quads
// across the lanes read 8 taps, 8 lines); a word that straddles into the
// next quad's is taken from that lane by a shuffle. B rows are contiguous in
// k for packed filters: one 16-byte load per 16 k. An invocation's share is
// the same every K step (so its row and column sums accumulate in
// registers): the A quads of rows 4*aQuadRow.. and k 4*(aQuadK + q*WARPS)..
// for q < A_QUADS (BM/4 x BK/4 = A_QUADS * WG quads: 1 per invocation of 8
// warps or of 4 on 64 rows, 2 of 4 on 128), and B chunks of 16 k: row
// chunk/2, half chunk%2 (= t%2), for chunk = t, t + WG.
//
// The global loads of one K step go to registers (loadStep) and are only
// used after the multiplies of the previous step (storeStep), so their
// latency overlaps the tensor-core work. Every index into these registers
// is a literal once the functions are inlined: a dynamic index would move
// them to local memory.

// Steps (c, ky, kx) to the next k; a dimension of size 1 stays 0 without a
// compare (a 1x1 kernel steps c alone).
void stepK(inout uint c, inout uint ky, inout uint kx) {
  if (KW > 1 && kx + 1 < KW) {
    ++kx;
    return;
  }
  kx = 0;
  if (KH > 1 && ky + 1 < KH) {
    ++ky;
    return;
  }
  ky = 0;
  ++c;
}

// (At least 1: the 96-row variants, whose A comes from scratch alone, declare them unused.)
const uint A_QUADS = max((BM / 4) * (BK / 4) / WG, 1u);
uint aQuadK, aQuadRow;
bool nextIsNeighbor;  // the next lane is invocation t + 1 (the shuffles in storeAStep read it)
void setupStaging() {
#if FM == 2
  // Tiles of 64 rows (4 warps): 16 row quads, two k quads a warp.
  aQuadK = 2 * warp + lane / 16, aQuadRow = lane % 16;
  const bool quadRowNext = lane % 16 != 15;
#else
  aQuadK = warp % (BK / 4), aQuadRow = lane + 32 * (warp / (BK / 4));  // 16 warps: two row bands
  const bool quadRowNext = true;
#endif
  const uint nextT = subgroupShuffleDown(t, 1);  // in uniform control flow
  nextIsNeighbor = quadRowNext && lane + 1 < 32 && gl_SubgroupInvocationID + 1 < gl_SubgroupSize && nextT == t + 1;
}

// The tile's staging state (beginStaging). Where the quad's rows take their
// taps (row j: output pixel m0 + 4*aQuadRow + j): the input offset of tap
// (0, 0, 0) and, for the range checks that remain, its coordinates.
// Contiguous rows need row 0 only: the 4 pixels share batch and oy, and ox
// is a multiple of 4 (OW % 4 == 0), so x stays word-aligned and each tap's
// byte shift is a constant of kx; or (a 1x1 kernel over images whose rows
// lie back to back, H * W % 4 == 0) they are 4 consecutive bytes of one
// image, from an aligned word, whatever their rows. Stride-2 rows too: ox
// a multiple of 4 puts x at a multiple of 8. Offsets wrap (padding) but are
// only used in range.
bool rowValid[4];
COORD_T iy0[4], ix0[4];
INDEX_T pixelBase[4];
bool highFromNext;  // contiguous rows: the next lane's quad continues this one's output row
uint rowMask;       // the bytes of rows below M (gathered rows)
uint quadK;         // contiguous or stride-2 rows: 4, or 0 for a quad past M (M % 4 == 0)
int rowPartial[4];  // this invocation's shares of the row and column sums
int colPartial[2];
// Where this invocation's B chunks start: filter row n0 + chunk/2, at k
// 16*(t%2) (+ BK per step); 16-byte loads where the chunk lies contiguous
// and aligned.
uint bRowCount[2];  // 16, or 0 past Ng
INDEX_T bRowOffset[2];
bool bAligned[2];
// (c, ky, kx) of the quad's first k in the step loadAStep loads next.
uint quadC[A_QUADS], quadKy[A_QUADS], quadKx[A_QUADS];

// One K step in registers. Per k i of A quad q: for contiguous rows, the
// two aligned words around its 4 bytes (aLow[q][i], aHigh[q][i]) and the
// byte shift (aShift[q][i]); otherwise the 4 gathered bytes as one word
// (aLow[q][i], shift 0). Rows of whole words (W % 4 == 0, rows 4-byte aligned) make
// every word wholly inside or outside the row: outside, it is padding.
struct StagedStep {
  uvec4 aLow[A_QUADS], aHigh[A_QUADS], aShift[A_QUADS];
  uint aCount[A_QUADS];  // k of each quad below Kg (0: rows past M, contiguous)
  uvec4 bRaw[2];
  uint bCount[2];  // k of each B chunk below Kg (0: past Ng or Kg)
};
StagedStep staged;

void beginStaging() {
  [[unroll]] for (uint j = 0; j < 4; ++j) {  // contiguous rows use j = 0 alone
    const uint row = 4 * aQuadRow + j, m = m0 + row;
    rowValid[j] = row < M - m0;
    const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
    if (j == 0) highFromNext = nextIsNeighbor && ox + 4 < p.outputW;
    iy0[j] = COORD_T(oy) * coord(STRIDE_Y) - coord(PAD_Y);
    // Contiguous rows: the x padding goes into each tap's shift instead.
    ix0[j] = COORD_T(ox) * coord(STRIDE_X) - coord(ROWS_CONTIGUOUS ? 0u : PAD_X);
    pixelBase[j] = INDEX_T(batch) * inS0 + INDEX_T(g * p.groupChannels) * inS1 + INDEX_T(iy0[j]) * inS2 +
                   INDEX_T(ix0[j]) * inS3;
  }
  rowMask = 0;
  if (!ROWS_WORDS)
    [[unroll]] for (uint j = 0; j < 4; ++j)
      if (rowValid[j]) rowMask |= 0xFFu << (8 * j);
  quadK = !ROWS_WORDS || rowValid[0] ? 4u : 0u;
  rowPartial = int[4](0, 0, 0, 0);
  colPartial = int[2](0, 0);
  [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r) {
    const uint bRow = (t + r * WG) / 2;
    bRowCount[r] = stagesB && bRow < Ng - n0 ? 16u : 0u;
    bRowOffset[r] = INDEX_T(g * Ng + n0 + bRow) * fS0;
    bAligned[r] = K_CONTIGUOUS && ((uint(filterAddress) + uint(bRowOffset[r])) & 15) == 0;
  }
  [[unroll]] for (uint q = 0; q < A_QUADS; ++q) {
    const uint quadK0 = kBegin + 4 * (aQuadK + q * WARPS);
    quadC[q] = quadK0 / KHW, quadKy[q] = (quadK0 % KHW) / KW, quadKx[q] = quadK0 % KW;
  }
  staged.bCount = uint[2](0, 0);
}
