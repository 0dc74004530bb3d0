// convolution_integer_coopmat.comp: the multiplies, and the loop over K
// steps that interleaves them with the staging of the next step.

// The warp's FM x FN blocks of the tile, SUBS device fragments each: block
// (i, j)'s fragment (si, sj) covers rows 16i + FRAG_M si, columns 16j +
// FRAG_N sj of the warp's part.
ACC_T acc[FM * FN * SUBS];
uint accIndex(uint i, uint j, uint si, uint sj) { return ((i * FN + j) * SUB_M + si) * SUB_N + sj; }

// The multiplies of the K step in the buffer at `base`, one fragment depth
// (FRAG_K bytes, FRAG_K / 16 uvec4 along the rows) at a time: the FN x SUB_N
// B fragments held, one A fragment at a time (FN * SUB_N + 1 operand
// fragments in registers rather than FM * SUB_M + 1).
void multiply(uint base) {
  [[unroll]] for (uint kk = 0; kk < SUB_K; ++kk) {
    const uint at = base + kk * (FRAG_K / 16);
    B_T b[FN * SUB_N];
    [[unroll]] for (uint j = 0; j < FN; ++j)
      [[unroll]] for (uint sj = 0; sj < SUB_N; ++sj)
        LOAD_B(b[j * SUB_N + sj], at + (BM + (warpN * FN + j) * 16 + sj * FRAG_N) * ROW4, ROW4);
    FRAGMENT_LOOP for (uint i = 0; i < FRAGMENTS_M; ++i) {
      FRAGMENT_LOOP for (uint si = 0; si < SUB_M; ++si) {
        A_T a;
        LOAD_A(a, at + ((warpM * FM + i) * 16 + si * FRAG_M) * ROW4, ROW4);
        FRAGMENT_LOOP for (uint j = 0; j < FRAGMENTS_N; ++j) {
          FRAGMENT_LOOP for (uint sj = 0; sj < SUB_N; ++sj) {
            const uint f = accIndex(i, j, si, sj);
            acc[f] = MMA(a, b[j * SUB_N + sj], acc[f]);
          }
        }
      }
    }
  }
}

// All K steps of the tile into acc, double-buffered: while the warps
// multiply one buffer, the next step is loaded into registers and then
// stored into the other, one barrier per step. Where A comes from scratch
// and K is not split across the grid, in pairs of steps instead
// (PAIRED_STEPS): the next two steps' loads are issued before this pair's
// multiplies, so each load has two steps of multiplies to land in, and
// both are stored between two barriers (bench/results/paired_steps.md), or
// with K_PAIRED_ROWS into one buffer before a single barrier.
// Gathered operands (not packed) on tiles of at most 128 columns and 8
// warps: each step is loaded two steps ahead of its multiplies, so that its
// loads have two steps of multiplies to land in. The 256-column tiles,
// with more registers taken, ran slower so, and 16 warps gained nothing
// (bench/results/prefetch.md).
const bool TWO_AHEAD = PACKED == 0 && !TWO_STEPS && BN <= 128 && WARPS <= 8;
void multiplyTile() {
  [[unroll]] for (uint f = 0; f < FM * FN * SUBS; ++f) acc[f] = ACC_ZERO;
#if PACKED
  if (A_PAIRS && !PAIRED_ROWS) {
    // As the PAIRED_STEPS loop below, each pair loaded and stored whole
    // (step.glsl, loadPair): its first step into buffer 0, its second into 1.
    loadPair(0u);
    storePair(0u);
    barrier();
    for (uint kt = 0; kt < kTiles; kt += 2) {
      const bool more = kt + 2 < kTiles;
      if (more) loadPair(kt + 2);
      multiply(0);
      if (kt + 1 < kTiles) multiply(STAGE4);
      barrier();
      if (more) {
        storePair(0u);
        barrier();
      }
    }
    return;
  }
  if (A_PAIRS) {
    // As below, each pair loaded and stored whole (step.glsl, loadPair).
    loadPair(0u);
    storePair(0u);
    barrier();
    uint b = 0;
    for (uint kt = 0; kt < kTiles; kt += 2) {
      const bool more = kt + 2 < kTiles;
      if (more) loadPair(kt + 2);
      multiply(b * STAGE4);
      if (kt + 1 < kTiles) multiply(b * STAGE4 + BK / 16);
      b ^= 1u;
      if (more) storePair(b);
      barrier();
    }
    return;
  }
  if (PAIRED_STEPS && PAIRED_ROWS) {
    // Both steps of a pair in one buffer (the second from uvec4 SECOND of
    // each row), the two buffers taking pairs in turn: one barrier per
    // pair, the next pair stored while other warps still multiply. (One
    // loop for both layouts, with a buffer index in place of the constants
    // below, made the 256-column GEMMs 4-7% slower:
    // bench/results/paired_steps.md.)
    const uint SECOND = BK / 16;
    loadStep(0u);
    if (kTiles > 1) {
      holdStep();
      loadStep(1u);
      storeStepIn(0u, SECOND);
      takeHeldStep();
    }
    storeStepIn(0u, 0u);
    barrier();
    uint b = 0;
    for (uint kt = 0; kt < kTiles; kt += 2) {
      const bool more = loadNextPair(kt);
      multiply(b * STAGE4);
      if (kt + 1 < kTiles) multiply(b * STAGE4 + SECOND);
      b ^= 1u;
      if (more) {
        if (kt + 3 < kTiles) storeStepIn(b, SECOND);
        takeHeldStep();
        storeStepIn(b, 0u);
      }
      barrier();
    }
    return;
  }
  if (PAIRED_STEPS) {
    loadStep(0u);
    if (kTiles > 1) {  // both loads in flight before either store
      holdStep();
      loadStep(1u);
      storeStep(1u);
      takeHeldStep();
    }
    storeStep(0u);
    barrier();
    for (uint kt = 0; kt < kTiles; kt += 2) {
      const bool more = loadNextPair(kt);
      multiply(0);
      if (kt + 1 < kTiles) multiply(STAGE4);
      barrier();
      if (more) {
        if (kt + 3 < kTiles) storeStep(1u);
        takeHeldStep();
        storeStep(0u);
        barrier();
      }
    }
    return;
  }
#endif
#if PACKED && PREFETCH > 1
  [[unroll]] for (uint slot = 0; slot < PREFETCH; ++slot) loadSlot(slot, slot);
  takeSlot(0);
  if (!A_IN_SCRATCH) loadAStep(0u);
  storeStep(0u);
  barrier();
  loadSlot(PREFETCH, 0);
  for (uint kt0 = 0; kt0 < kTiles; kt0 += PREFETCH) {
    [[unroll]] for (uint d = 0; d < PREFETCH; ++d) {
      const uint kt = kt0 + d;
      if (kt >= kTiles) break;
      const bool more = kt + 1 < kTiles;
      if (!A_IN_SCRATCH && more) loadAStep(kt + 1);
      multiply((kt % 2) * STAGE4);
      if (more) {
        // Step kt + 1 out of its slot, step kt + 1 + PREFETCH into it.
        takeSlot((d + 1) % PREFETCH);
        storeStep((kt + 1) % 2);
        loadSlot(kt + 1 + PREFETCH, (d + 1) % PREFETCH);
      }
      barrier();
    }
  }
#else
  if (PACKED == 0 && TWO_STEPS) {
    // The whole of K fills the two buffers: both steps' loads are issued
    // before either is stored, so the tile waits for one round trip to
    // memory instead of two.
    loadStep(0u);
    const StagedStep step0 = staged;
    loadStep(1u);
    const StagedStep step1 = staged;
    staged = step0;
    storeStep(0u);
    staged = step1;
    storeStep(1u);
    barrier();
    multiply(0);
    multiply(STAGE4);
  } else if (TWO_AHEAD) {
    // Unrolled by two, so that each step's registers keep their role: even
    // steps in s0, odd ones in s1 (a copy between them would wait for the
    // loads in flight).
    loadStep(0u);
    StagedStep s0 = staged, s1 = staged;
    if (kTiles > 1) {
      loadStep(1u);
      s1 = staged;
    }
    staged = s0;
    storeStep(0u);
    barrier();
    for (uint kt = 0; kt < kTiles; kt += 2) {
      if (kt + 2 < kTiles) {
        loadStep(kt + 2);
        s0 = staged;
      }
      multiply(0);
      if (kt + 1 < kTiles) {
        staged = s1;
        storeStep(1u);
      }
      barrier();
      if (kt + 1 >= kTiles) break;
      if (kt + 3 < kTiles) {
        loadStep(kt + 3);
        s1 = staged;
      }
      multiply(STAGE4);
      if (kt + 2 < kTiles) {
        staged = s0;
        storeStep(0u);
      }
      barrier();
    }
  } else {
    loadStep(0u);
    storeStep(0u);
    barrier();
    for (uint kt = 0; kt < kTiles; ++kt) {
      const bool more = kt + 1 < kTiles;
      if (more) loadStep(kt + 1);  // global loads in flight during the multiplies
      multiply((kt % 2) * STAGE4);
      if (more) storeStep((kt + 1) % 2);
      barrier();
    }
  }
#endif
}
