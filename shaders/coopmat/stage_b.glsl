// convolution_integer_coopmat.comp: staging B, the filter's rows
// (stage.glsl describes the chunks).

// B: 16 consecutive k of filter row n (chunk t + r * WG).
void loadBChunk(uint kt, uint r) {
  const uint kStart = kt * BK + 16 * (t % 2);
  const uint count = WHOLE_STEPS ? bRowCount[r] : kStart < Kg ? min(bRowCount[r], Kg - kStart) : 0u;
  staged.bCount[r] = count;
  if (count == 16 && bAligned[r]) {
    staged.bRaw[r] = Word4Ref(filterAddress + uint64_t(bRowOffset[r] + INDEX_T(kBegin + kStart))).value;
    return;
  }
  // Byte by byte into a shift register: no dynamic index.
  uvec4 raw = uvec4(0);
  const uint fk = kBegin + kStart;
  uint fc = fk / KHW, fky = (fk % KHW) / KW, fkx = fk % KW;
  for (uint e = 0; e < 16; ++e) {
    uint value = 0;
    if (e < count) {
      value = loadByte(filterAddress +
                       uint64_t(bRowOffset[r] + INDEX_T(fc) * fS1 + INDEX_T(fky) * fS2 + INDEX_T(fkx) * fS3));
      stepK(fc, fky, fkx);
    }
    raw = uvec4((raw.x >> 8) | (raw.y << 24), (raw.y >> 8) | (raw.z << 24), (raw.z >> 8) | (raw.w << 24),
                (raw.w >> 8) | (value << 24));
  }
  staged.bRaw[r] = raw;
}

void loadBStep(uint kt) {
  loadBChunk(kt, 0);
  if (B_CHUNKS == 2) loadBChunk(kt, 1);
}

// B chunk values flipped to INT8, bytes past Kg 0.
void storeBChunk(uint base, uint r) {
  if (!stagesB) return;
  const uint chunk = t + r * WG;
  uvec4 words = staged.bRaw[r] ^ uvec4(FILTER_FLIP);
  if (staged.bCount[r] < 16) {
    const ivec4 valid = clamp(ivec4(int(staged.bCount[r])) - ivec4(0, 4, 8, 12), 0, 4);
    words &= mix(uvec4(1u) << (8u * uvec4(valid)), uvec4(0u), equal(valid, ivec4(4))) - uvec4(1u);
  }
  tiles[base + (BM + chunk / 2) * ROW4 + chunk % 2] = words;
  if (NEED_COL_SUMS) colPartial[r] += signedByteSum(words);
}

void storeBStep(uint b) {
  storeBChunk(b * STAGE4, 0);
  if (B_CHUNKS == 2) storeBChunk(b * STAGE4, 1);
}
