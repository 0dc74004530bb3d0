// convolution_integer_coopmat.comp: what one K step stages, loadStep (global
// memory to registers) and storeStep (registers to shared buffer b, and the
// sums): the gathered operands (stage_a.glsl, stage_b.glsl), or the packed
// ones.

#if !PACKED
void loadStep(uint kt) {
  loadAStep(kt);
  loadBStep(kt);
}
void storeStep(uint b) {
  storeAStep(b);
  storeBStep(b);
}
void beginPacked() {}
const bool A_PAIRS = false;
#else
// The filter (B) comes packed (convolution_integer_pack.comp), or where its
// rows hold the K steps as they lie, from the filter itself
// (B_FROM_FILTER); A as A_PACKING says (interface/convolution_integer.h):
// gathered by loadAStep, or read from scratch (A_IN_SCRATCH), already
// flipped and padded: each K step of the im2col matrix is one contiguous
// block, each of the channels-last input 32 consecutive bytes of a row's
// pixel. Invocation t stages chunks t, t + WG, ... of A (row chunk/2, half
// t%2) and of B.
const bool B_FILTER_ROWS = (FLAGS & B_FROM_FILTER) != 0;
// PAIRED_STEPS: A from scratch and K not split across the grid, so that
// the K loop takes its steps in pairs (multiply.glsl).
const bool PAIRED_STEPS = A_IN_SCRATCH && PREFETCH == 1 && !SPLIT_K;
// A_PAIRS: channels-last A in pairs of steps, each row's pair 64 consecutive
// bytes loaded by 4 invocations (chunk r: row (t + r * WG) / 4, part t % 4;
// parts 2 and 3 the second step), so that a warp's load spans 8 rows, not 16.
// The pair's steps lie in one tap: groups of a multiple of 64 channels (the
// plan's A_PAIRED_CHUNKS) and K from 0 (not chunked, not split).
const bool A_PAIRS = (FLAGS & A_PAIRED_CHUNKS) != 0 && A_PACKING == A_CHANNELS_LAST && PAIRED_STEPS && !CHUNKED;
// Where a pair's second step lies from its first: further along the same
// rows (K_PAIRED_ROWS), else in the next buffer.
const uint PAIR_SECOND = PAIRED_ROWS ? BK / 16 : STAGE4;
const uint A_ROW_PARTS = A_PAIRS ? 4 : 2, A_LOADS = A_PAIRS ? A_PAIR_CHUNKS : A_CHUNKS;
uint64_t aBlocks[A_PAIR_CHUNKS], bBlocks;  // this invocation's chunks of the tile's first step (channels-last A: of tap 0)
uvec4 aChunk[A_CHUNKS], pairChunk[A_PAIR_CHUNKS];
// Channels-last A: whether each chunk's row lies in the tile below M, and
// the next step's place: channel aC of tap (ky, aKx), at aTapOffset from
// tap (0, 0). Each step is loaded once, in order, so the place steps on
// without dividing by the channels. A_DIRECT: from the input itself, the
// chunk's pixel at (aY[r], aX[r]) for tap (0, 0), aPixel[r] bytes from
// aBlocks[r] (32 bits, which wrap below 0: the sum with a tap's offset is
// exact wherever it lies inside), the tap's at (aTapY, aTapX) from it,
// outside the input the zero point.
const bool A_DIRECT = (FLAGS & A_FROM_INPUT) != 0;
bool aRowValid[A_PAIR_CHUNKS];
int aY[A_PAIR_CHUNKS], aX[A_PAIR_CHUNKS];
uint aPixel[A_PAIR_CHUNKS];
uint aC, aKx, aTapOffset, aTapY, aTapX;
// Channels-last A's taps, from ConvParams (not specialization constants, so
// that layers of other geometries share the pipeline; read once, as ConvParams
// is memory): the kernel's width, the group's channels, what the offset moves
// by to the next tap of a row and to the next row, and (A_DIRECT) the
// dilations and the input's extent.
uint clKW, clChannels, clTapStep, clRowStep, clDilationY, clDilationX, clInputH, clInputW;
void beginPacked() {
  const uint64_t packed = tensorAddress(p.scratchSlot);
  // Blocks of all K steps per tile (p.kTiles, kTiles unless CHUNKED); this
  // dispatch's chunk starts at step kBegin / BK.
  const uint allSteps = CHUNKED || SPLIT_K ? p.kTiles : kTiles, firstStep = kBegin / BK;
  if (A_PACKING == A_CHANNELS_LAST) {
    // The pixels' strides: the input's (A_DIRECT: its channels' stride is 1,
    // its offsets fit 32 bits) or those of the packed padded extent.
    const uint paddedH = VKDML_PADDED_EXTENT(p.outputH, p.strideY, p.kernelH, p.dilationY);
    const uint paddedW = VKDML_PADDED_EXTENT(p.outputW, p.strideX, p.kernelW, p.dilationX);
    const uint channels = p.groupChannels * (p.tiles / (p.mTiles * p.nTiles));
    const uint xStride = A_DIRECT ? uint(p.inputStrides[3]) : channels;
    const uint yStride = A_DIRECT ? uint(p.inputStrides[2]) : paddedW * channels;
    const uint imageStride = A_DIRECT ? uint(p.inputStrides[0]) : paddedH * paddedW * channels;
    const uint padY = A_DIRECT ? p.padY : 0u, padX = A_DIRECT ? p.padX : 0u;
    const uint64_t base = A_DIRECT ? inputAddress : packed + p.packedAOffset;
    clKW = p.kernelW, clChannels = p.groupChannels;
    clDilationY = p.dilationY, clDilationX = p.dilationX, clInputH = p.inputH, clInputW = p.inputW;
    clTapStep = p.dilationX * xStride;
    clRowStep = p.dilationY * yStride - clKW * p.dilationX * xStride;  // may wrap: the sums stay exact
    [[unroll]] for (uint r = 0; r < A_LOADS; ++r) {
      const uint row = (t + r * WG) / A_ROW_PARTS, m = m0 + row;
#if FM == 3
      aRowValid[r] = row < M - m0 && row < BM;  // 96-row tiles: no load for the last 64 invocations
#else
      aRowValid[r] = row < M - m0;
#endif
      const uint ox = m % p.outputW, oy = (m / p.outputW) % p.outputH, batch = m / p.outputW / p.outputH;
      aY[r] = int(oy * p.strideY) - int(padY), aX[r] = int(ox * p.strideX) - int(padX);
      aPixel[r] = batch * imageStride + uint(aY[r]) * yStride + uint(aX[r]) * xStride;
      aBlocks[r] = base + g * p.groupChannels + 16 * (t % A_ROW_PARTS) +
                   (A_DIRECT ? uint64_t(0) : uint64_t(batch * paddedH + oy * p.strideY) * yStride + ox * p.strideX * xStride);
    }
    const uint tap = kBegin / p.groupChannels;
    aC = kBegin - tap * p.groupChannels;
    aKx = tap % clKW;
    aTapY = tap / clKW * p.dilationY, aTapX = aKx * p.dilationX;
    aTapOffset = aTapY * yStride + aTapX * xStride;
  } else
    [[unroll]] for (uint r = 0; r < A_CHUNKS; ++r)
      aBlocks[r] = packed + p.packedAOffset + uint64_t((g * p.mTiles + mTile) * allSteps + firstStep) * (BM * 32) +
                   16 * (t + r * WG);
  if (!B_FILTER_ROWS)
    bBlocks = tensorAddress(p.packedBSlot) + p.packedBOffset + uint64_t((g * p.nTiles + nTile) * allSteps + firstStep) * (BN * 32) + 16 * t;
}
// Channels-last A's chunk r at the current place (k = (ky * KW + kx) *
// groupChannels + c), or 0 where not `valid`. From the input, flipped to INT8
// as the pack would have, and outside it the zero point, as the pack writes
// the padding.
uvec4 channelsLastChunk(uint r, bool valid) {
  if (!A_DIRECT) return valid ? Word4Ref(aBlocks[r] + aTapOffset + aC).value : uvec4(0);
  const bool inside = uint(aY[r] + int(aTapY)) < clInputH && uint(aX[r] + int(aTapX)) < clInputW;
  return valid ? (inside ? Word4Ref(aBlocks[r] + (aPixel[r] + aTapOffset + aC)).value : uvec4(xzWord)) ^
                     uvec4(INPUT_FLIP)
               : uvec4(0);
}
// The place of the next step (or pair) of channels-last A.
void stepChannels(uint channels) {
  aC += channels;
  if (aC == clChannels) {
    aC = 0;
    aTapOffset += clTapStep;
    aTapX += clDilationX;
    if (++aKx == clKW) {
      aKx = 0;
      aTapOffset += clRowStep;  // may wrap: the sum stays exact
      aTapX = 0;
      aTapY += clDilationY;
    }
  }
}
// Step kt's A chunks into aChunk.
void loadPackedA(uint kt) {
  if (A_PACKING != A_CHANNELS_LAST) {
    [[unroll]] for (uint r = 0; r < A_CHUNKS; ++r)
      IN_TILE_A_CHUNK(r, aChunk[r] = Word4Ref(aBlocks[r] + uint64_t(kt) * (BM * 32)).value)
    return;
  }
  [[unroll]] for (uint r = 0; r < A_CHUNKS; ++r) aChunk[r] = channelsLastChunk(r, aRowValid[r]);
  stepChannels(BK);
}
// Steps kt and kt + 1's A chunks into pairChunk (A_PAIRS); past kTiles, 0.
void loadPairA(uint kt) {
  const bool second = kt + 1 < kTiles;
  [[unroll]] for (uint r = 0; r < A_PAIR_CHUNKS; ++r)
    pairChunk[r] = channelsLastChunk(r, aRowValid[r] && (t % 4 < 2 || second));
  stepChannels(2 * BK);
}
// B_FROM_FILTER: the chunk from the filter's row (beginStaging's offsets,
// as loadBChunk's aligned loads), flipped here as the pack would have.
uvec4 loadPackedB(uint kt, uint r) {
  if (B_FILTER_ROWS) {
    const uint64_t address = filterAddress + uint64_t(bRowOffset[r] + INDEX_T(kBegin + kt * BK + 16 * (t % 2)));
    return bRowCount[r] != 0 ? Word4Ref(address).value ^ uvec4(FILTER_FLIP) : uvec4(0);
  }
  return stagesB ? Word4Ref(bBlocks + uint64_t(kt) * (BN * 32) + 16 * WG * r).value : uvec4(0);
}
void loadStep(uint kt) {
  if (A_IN_SCRATCH)
    loadPackedA(kt);
  else
    loadAStep(kt);
  staged.bRaw[0] = loadPackedB(kt, 0);
  if (B_CHUNKS == 2) staged.bRaw[1] = loadPackedB(kt, 1);
}
// storeStepIn: at uvec4 `at` of each row of buffer b (K_PAIRED_ROWS: a
// pair's second step at BK / 16; gathered A, never paired, at 0).
void storeStepIn(uint b, uint at) {
  const uint base = b * STAGE4 + at;
  if (A_IN_SCRATCH)
    [[unroll]] for (uint r = 0; r < A_CHUNKS; ++r) {
      IN_TILE_A_CHUNK(r, tiles[base + ((t + r * WG) / 2) * ROW4 + t % 2] = aChunk[r])
      if (ROW_SUMS_ON) rowPartial[r] += signedByteSum(aChunk[r]);
    }
  else
    storeAStep(b);
  if (stagesB) [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r) {
    tiles[base + (BM + (t + r * WG) / 2) * ROW4 + t % 2] = staged.bRaw[r];
    if (NEED_COL_SUMS) colPartial[r] += signedByteSum(staged.bRaw[r]);
  }
}
void storeStep(uint b) { storeStepIn(b, 0u); }

// A_PAIRS: steps kt and kt + 1 (0 past kTiles) in registers, and into
// buffer b: each row's first step's 2 chunks, and PAIR_SECOND on its
// second's.
uvec4 pairB[2][2];
void loadPair(uint kt) {
  loadPairA(kt);
  [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r) {
    pairB[0][r] = loadPackedB(kt, r);
    pairB[1][r] = kt + 1 < kTiles ? loadPackedB(kt + 1, r) : uvec4(0);
  }
}
void storePair(uint b) {
  const uint base = b * STAGE4;
  [[unroll]] for (uint r = 0; r < A_PAIR_CHUNKS; ++r) {
    IN_TILE_CHUNK(r, 4, tiles[base + ((t + r * WG) / 4) * ROW4 + (t % 4) / 2 * PAIR_SECOND + t % 2] = pairChunk[r])
    if (ROW_SUMS_ON) rowPartial[r] += signedByteSum(pairChunk[r]);
  }
  if (stagesB) [[unroll]] for (uint r = 0; r < B_CHUNKS; ++r) [[unroll]] for (uint s = 0; s < 2; ++s) {
    tiles[base + (BM + (t + r * WG) / 2) * ROW4 + s * PAIR_SECOND + t % 2] = pairB[s][r];
    if (NEED_COL_SUMS) colPartial[r] += signedByteSum(pairB[s][r]);
  }
}

// PAIRED_STEPS (multiply.glsl): the first of two steps in flight, while
// the second loads into aChunk and staged.bRaw.
uvec4 heldA[A_CHUNKS], heldB[2];
void holdStep() {
  heldA = aChunk;
  heldB = staged.bRaw;
}
void takeHeldStep() {
  aChunk = heldA;
  staged.bRaw = heldB;
}
// The loads of the pair after the one from step kt, where there is one:
// its first step held, its second (where there is one) in flight.
bool loadNextPair(uint kt) {
  const bool more = kt + 2 < kTiles;
  if (more) {
    loadStep(kt + 2);
    holdStep();
    if (kt + 3 < kTiles) loadStep(kt + 3);
  }
  return more;
}

#if PREFETCH > 1
// Packed chunks PREFETCH K steps ahead of their store: slot i of the rings
// holds the step that is i modulo PREFETCH. The step loop is unrolled by
// PREFETCH so that every slot index is a literal (a dynamic index, or
// picking the slot by compares, measured slower on the H200). A, where it
// is gathered, stays one step ahead.
uvec4 ringA[PREFETCH * A_CHUNKS], ringB0[PREFETCH], ringB1[PREFETCH];
void loadSlot(uint kt, uint slot) {
  if (kt >= kTiles) return;
  if (A_IN_SCRATCH) {
    loadPackedA(kt);
    [[unroll]] for (uint r = 0; r < A_CHUNKS; ++r) ringA[slot * A_CHUNKS + r] = aChunk[r];
  }
  ringB0[slot] = loadPackedB(kt, 0);
  if (B_CHUNKS == 2) ringB1[slot] = loadPackedB(kt, 1);
}
void takeSlot(uint slot) {
  if (A_IN_SCRATCH) [[unroll]] for (uint r = 0; r < A_CHUNKS; ++r) aChunk[r] = ringA[slot * A_CHUNKS + r];
  staged.bRaw[0] = ringB0[slot];
  if (B_CHUNKS == 2) staged.bRaw[1] = ringB1[slot];
}
#endif
#endif
