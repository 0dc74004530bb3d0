// convolution_integer_coopmat.comp: the multiplies, and the loop over K
// steps that interleaves them with the staging of the next step.

ACC_T acc[FM * FN];  // the warp's FM x FN fragments of the tile

// The multiplies of the K step in the buffer at `base`: the FN B fragments
// held, one A fragment at a time (FN + 1 operand fragments in registers
// rather than FM + 1).
void multiply(uint base) {
  B_T b[FN];
  [[unroll]] for (uint j = 0; j < FN; ++j) LOAD_B(b[j], base + (BM + (warpN * FN + j) * 16) * ROW4, ROW4);
  FRAGMENT_LOOP for (uint i = 0; i < FRAGMENTS_M; ++i) {
    A_T a;
    LOAD_A(a, base + (warpM * FM + i) * 16 * ROW4, ROW4);
    FRAGMENT_LOOP for (uint j = 0; j < FRAGMENTS_N; ++j) acc[i * FN + j] = MMA(a, b[j], acc[i * FN + j]);
  }
}

// All K steps of the tile into acc, double-buffered: while the warps
// multiply one buffer, the next step is loaded into registers and then
// stored into the other, one barrier per step.
void multiplyTile() {
  [[unroll]] for (uint f = 0; f < FM * FN; ++f) acc[f] = ACC_ZERO;
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
