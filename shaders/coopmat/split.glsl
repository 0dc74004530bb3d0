// convolution_integer_coopmat.comp: the chunks of a K split across the grid
// (K_SPLIT) zeroing their tile's outputs themselves (K_SPLIT_ZEROES), in
// place of a fill dispatch and the barrier after it.
//
// Each tile has SPLIT_TILE_WORDS counters in the binding table's memory,
// zero when an execution starts: the first chunk to arrive zeroes the
// tile's outputs, then sets `ready`; the others wait for `ready` before
// their atomic adds. A chunk waits only on one that has already arrived,
// so is running. The last chunk to finish zeroes the counters for the next
// execution (which the caller orders after this one, as the output they
// share requires).

layout(buffer_reference, std430, buffer_reference_align = 16) buffer TileCounters {
  uint arrivals, ready, done, unused;
};
layout(buffer_reference, std430, buffer_reference_align = 4) coherent writeonly buffer OutputZeroRef {
  int value;
};
layout(buffer_reference, std430, buffer_reference_align = 16) coherent writeonly buffer Output4ZeroRef {
  ivec4 value;
};
shared bool zeroesTile;  // this workgroup arrived first at its tile

TileCounters tileCounters(uint tile) {
  return TileCounters(pc.bindingsAddress + p.tileCounters + uint64_t(tile) * (4 * SPLIT_TILE_WORDS));
}

// Before the K loop: the first to arrive zeroes the tile's outputs (the
// M - m0 rows and Ng - n0 columns in reach): consecutive invocations take
// consecutive rows (m) of a column, each working out its row's address once;
// where the output's channels lie innermost, consecutive columns of a row,
// 4 at a time where they make aligned quads (OUTPUT_CHANNEL_QUADS).
const uint ROW_LANES = WG >= BM ? WG / BM : 1;  // invocations per row
const uint ZERO_ROWS = WG / ROW_LANES;            // rows at a time
void beginSplitTile(uint tile) {
  if (!SPLIT_ZEROES) return;
  if (t == 0) zeroesTile = atomicAdd(tileCounters(tile).arrivals, 1u) == 0;
  barrier();
  if (!zeroesTile) return;
  const INDEX_T channelStride = INDEX_T(p.outputStrides[1]);
  const uint rows = min(BM, M - m0), columns = min(BN, Ng - n0);
  if (OUTPUT_CHANNELS_INNERMOST) {
    const bool quads = OUTPUT_CHANNEL_QUADS && (uint(outputAddress) & 15u) == 0;
    const uint width = quads ? 4u : 1u, lanes = min(BN / width, WG), rowsAtATime = WG / lanes;
    for (uint row = t / lanes; row < rows; row += rowsAtATime) {
      const uint64_t address = outputAddress + 4 * uint64_t(outputPixel(m0 + row) + INDEX_T(g * Ng + n0));
      for (uint column = (t % lanes) * width; column < columns; column += lanes * width)
        if (quads)
          Output4ZeroRef(address + 4 * column).value = ivec4(0);
        else
          OutputZeroRef(address + 4 * column).value = 0;
    }
  } else {
    for (uint row = t % ZERO_ROWS; row < rows; row += ZERO_ROWS) {
      const INDEX_T outRow = outputPixel(m0 + row) + INDEX_T(g * Ng + n0) * channelStride;
      for (uint column = t / ZERO_ROWS; column < columns; column += ROW_LANES)
        OutputZeroRef(outputAddress + 4 * uint64_t(outRow + INDEX_T(column) * channelStride)).value = 0;
    }
  }
  memoryBarrierBuffer();
  barrier();
  if (t == 0) {
    memoryBarrierBuffer();
    atomicExchange(tileCounters(tile).ready, 1u);
  }
}

// Before the atomic adds (storeOutput's first barrier follows): the others
// wait for the zeros.
void awaitTileZeroes(uint tile) {
  if (!SPLIT_ZEROES || zeroesTile || t != 0) return;
  while (atomicOr(tileCounters(tile).ready, 0u) == 0) {
  }
  memoryBarrierBuffer();
}

// After the adds and the barrier after them: the last to finish leaves the
// counters zero. Every chunk has arrived and passed its wait by then.
void endSplitTile(uint tile) {
  if (!SPLIT_ZEROES || t != 0) return;
  TileCounters counters = tileCounters(tile);
  if (atomicAdd(counters.done, 1u) == gl_NumWorkGroups.y - 1) {
    atomicExchange(counters.arrivals, 0u);
    atomicExchange(counters.ready, 0u);
    atomicExchange(counters.done, 0u);
  }
}
