#version 460
#extension GL_GOOGLE_include_directive : require
// Packs the operands of the cooperative-matrix GEMM (convolution_integer_coopmat.comp
// with PACKED=1) into scratch, so that its staging is one 16-byte load and
// store per chunk: A as A_PACKING says (interface/convolution_integer.h:
// nothing, the im2col matrix in blocks, or the padded input channels-last;
// padding = the input zero point), then B (the filter, rows n) in blocks of
// [BN rows][32 bytes] per (group, n tile, K step), its k in the order A's
// take. Bytes are flipped to INT8 (UINT8 XOR 0x80) and 0 past Ng or Kg,
// and past M but where A comes from words (the GEMM stores none of those
// rows' outputs).
// One invocation per 16-byte chunk (half a row of a block), neighbouring
// invocations writing neighbouring chunks; the channels-last input goes
// through shared memory a tile per workgroup (packChannelsLast), and B
// channels-last from a dense filter an item per 16 channels of a row
// (packFilterSpan), and the im2col matrix of a short K a row per item
// (packARow). Last, where ConvParams.outputZeroWords says so, it
// zeroes the output for the K_SPLIT GEMM after it. The items after A's
// tiles start past the tiles' workgroups (main). Defines: INDEX_BITS (32
// or 64), PLANE_WORDS (1: A from whole words of the input's planes,
// packPlaneWords: channels-last, or the im2col matrix of a 1x1 kernel).
//
// The geometry is specialization constants (set by
// runtime/ops/convolution_integer_plan.cpp), as in the GEMM kernel: the driver turns
// the divisions that split chunk and k indices into multiplies and drops
// the range checks of taps that cannot reach padding.
#include "convolution_integer.glsl"
#ifndef PLANE_WORDS
#define PLANE_WORDS 0
#endif

VKDML_SPECIALIZATION(ConvolutionIntegerPackConstants, VKDML_CONVOLUTION_INTEGER_PACK_CONSTANTS)
const uint KHW = KH * KW;
const uint K_TILES = (KG + 31) / 32;
const uint INPUT_FLIP = (FLAGS & INPUT_SIGNED_FLAG) != 0 ? 0u : 0x80u;
const uint FILTER_FLIP = (FLAGS & FILTER_SIGNED_FLAG) != 0 ? 0u : 0x80u;
const bool Y_IN_RANGE = (FLAGS & TAPS_Y_IN_RANGE) != 0;
const bool X_IN_RANGE = (FLAGS & TAPS_X_IN_RANGE) != 0;
const bool CHANNELS_LAST = A_PACKING == A_CHANNELS_LAST;
// A filter chunk is 16 consecutive bytes where its k are: in (c, ky, kx)
// order, or channels-last for a 1x1 kernel.
const bool K_CONTIGUOUS = (FLAGS & FILTER_K_CONTIGUOUS) != 0 && (!CHANNELS_LAST || KHW == 1);
// The padded input's extent (A_CHANNELS_LAST).
const uint PADDED_H = VKDML_PADDED_EXTENT(OUTPUT_H, STRIDE_Y, KH, DILATION_Y);
const uint PADDED_W = VKDML_PADDED_EXTENT(OUTPUT_W, STRIDE_X, KW, DILATION_X);

layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer ChunkRef { uvec4 value; };

// A specialization constant widened in code: as a constant expression the
// 64-bit conversion would need SPIR-V 1.4.
COORD_T coord(uint v) { return COORD_T(v); }

// Channels-last A: the padded input, [N][Hp][Wp][C], in tiles of TILE_PIXELS
// consecutive pixels x 32 channels (p.aChunks tiles, runs of 32 channels
// fastest: neighbouring workgroups write neighbouring sectors of a pixel),
// one per workgroup at a time through shared memory: invocation t reads 16
// channels of one pixel, neighbouring invocations neighbouring pixels (one
// sector per load instruction), and then writes 16 bytes, two neighbouring
// invocations one pixel's whole 32-byte sector.
const uint TILE_PIXELS = gl_WorkGroupSize.x / 2;  // the plan's PACK_WORKGROUP or PACK_WORKGROUP_CHANNELS_LAST
// Words per pixel: a run's 8 per 32 channels, + 1 so that lanes storing one
// word each hit distinct banks (packChannelsLast runs 32 channels).
#if PLANE_WORDS
const uint RUN_QUADS = CHANNEL_RUN / 32;
#else
const uint RUN_QUADS = 1;
#endif
const uint TILE_ROW = 8 * RUN_QUADS + 1;
shared uint tileWords[TILE_PIXELS * TILE_ROW];
void packChannelsLast(ConvParams p, uint64_t inputAddress, uint xzBits, uint64_t aOut) {
  const INDEX_T inS0 = INDEX_T(p.inputStrides[0]), inS1 = INDEX_T(p.inputStrides[1]);
  const INDEX_T inS2 = INDEX_T(p.inputStrides[2]), inS3 = INDEX_T(p.inputStrides[3]);
  const uint pixels = p.M / (OUTPUT_H * OUTPUT_W) * PADDED_H * PADDED_W;
  const uint pixelTiles = (pixels + TILE_PIXELS - 1) / TILE_PIXELS, runs = p.aChunks / pixelTiles;  // runs = C / 32
  const uint t = gl_LocalInvocationID.x, channelHalf = t / TILE_PIXELS;
  for (uint tile = gl_WorkGroupID.x; tile < p.aChunks; tile += gl_NumWorkGroups.x) {
    const uint run = tile % runs, pixel0 = (tile / runs) * TILE_PIXELS;
    const uint pixel = pixel0 + t % TILE_PIXELS;
    uvec4 words = uvec4(0);
    if (pixel < pixels) {
      const uint x = pixel % PADDED_W, y = (pixel / PADDED_W) % PADDED_H, batch = pixel / PADDED_W / PADDED_H;
      const COORD_T iy = COORD_T(y) - coord(PAD_Y), ix = COORD_T(x) - coord(PAD_X);
      const bool inside = (Y_IN_RANGE || inRange(iy, INPUT_H)) && (X_IN_RANGE || inRange(ix, INPUT_W));
      const INDEX_T base =
          INDEX_T(batch) * inS0 + INDEX_T(32 * run + 16 * channelHalf) * inS1 + INDEX_T(iy) * inS2 + INDEX_T(ix) * inS3;
      [[unroll]] for (uint e = 0; e < 16; ++e) {
        const uint value = inside ? loadByte(inputAddress + uint64_t(base + INDEX_T(e) * inS1)) : xzBits;
        words[e / 4] |= (value ^ INPUT_FLIP) << (8 * (e % 4));
      }
    }
    [[unroll]] for (uint j = 0; j < 4; ++j) tileWords[(t % TILE_PIXELS) * TILE_ROW + 4 * channelHalf + j] = words[j];
    barrier();
    const uint row = t / 2, part = t % 2;
    if (pixel0 + row < pixels) {
      const uint w = row * TILE_ROW + 4 * part;
      ChunkRef(aOut + uint64_t(pixel0 + row) * (32 * runs) + 32 * run + 16 * part).value =
          uvec4(tileWords[w], tileWords[w + 1], tileWords[w + 2], tileWords[w + 3]);
    }
    barrier();  // the tile is read before the next overwrites it
  }
}

#if PLANE_WORDS
// A from whole words (the PLANE_WORDS variant: each image's channel planes
// contiguous, H * W % 4 == 0, 4-byte aligned): tiles of TILE_PIXELS
// consecutive input pixels of one image x CHANNEL_RUN channels (32, 64 or
// 128 channels-last: as many as divide C, to have more loads in flight per
// invocation; 32 for the im2col matrix), runs fastest. Invocation t loads
// words of pixels 4q..4q+3 (q = t % PLANE_QUADS), 4 channels of each
// channel quad h, h + 8, ... (h = t / PLANE_QUADS), a warp's load 128
// consecutive bytes of a plane (tiles of 128 pixels: the im2col matrix) or
// 32 of each of 4 planes (32 pixels: channels-last), and transposes each 4
// to 4 pixels' 4 channels;
// neighbouring invocations then store neighbouring 16 bytes of a pixel's
// run: channels-last, each pixel at its padded place (the padding, and
// input pixels the taps never reach, are left to packChannelsLastBorder);
// as the im2col matrix of a 1x1 kernel of stride 1 without padding (pixel
// = m within the image), each at its row of the (group, m tile, K step)
// blocks. The rows past M stay as they were: the GEMM stores nothing of
// them.
const uint PLANE_QUADS = TILE_PIXELS / 4;
const uint PLANE_TILES = (INPUT_H * INPUT_W + TILE_PIXELS - 1) / TILE_PIXELS;  // per image
void packPlaneWords(ConvParams p, uint64_t inputAddress, uint64_t aOut) {
  const INDEX_T inS0 = INDEX_T(p.inputStrides[0]), inS1 = INDEX_T(p.inputStrides[1]);
  const uint planePixels = INPUT_H * INPUT_W, images = p.M / (OUTPUT_H * OUTPUT_W);
  const uint runs = p.aChunks / (images * PLANE_TILES), channels = runs * CHANNEL_RUN;
  const uint t = gl_LocalInvocationID.x, quad = t % PLANE_QUADS, channelQuad = t / PLANE_QUADS;
  for (uint tile = gl_WorkGroupID.x; tile < p.aChunks; tile += gl_NumWorkGroups.x) {
    const uint run = tile % runs, batch = (tile / runs) / PLANE_TILES;
    const uint pixel0 = ((tile / runs) % PLANE_TILES) * TILE_PIXELS, pixel = pixel0 + 4 * quad;
    uvec4 words[RUN_QUADS];
    [[unroll]] for (uint r = 0; r < RUN_QUADS; ++r) words[r] = uvec4(0);
    if (pixel < planePixels) {
      const INDEX_T base =
          INDEX_T(batch) * inS0 + INDEX_T(CHANNEL_RUN * run + 4 * channelQuad) * inS1 + INDEX_T(pixel);
      [[unroll]] for (uint r = 0; r < RUN_QUADS; ++r)
        [[unroll]] for (uint c = 0; c < 4; ++c)
          words[r][c] = WordRef(inputAddress + uint64_t(base + INDEX_T(32 * r + c) * inS1)).value ^
                        (INPUT_FLIP * 0x01010101u);
    }
    [[unroll]] for (uint r = 0; r < RUN_QUADS; ++r) {
      const uvec4 pixels = transposeBytes(words[r]);
      [[unroll]] for (uint j = 0; j < 4; ++j) tileWords[(4 * quad + j) * TILE_ROW + channelQuad + 8 * r] = pixels[j];
    }
    barrier();
    [[unroll]] for (uint r = 0; r < RUN_QUADS; ++r) {
      const uint item = t + gl_WorkGroupSize.x * r, row = item / (2 * RUN_QUADS), part = item % (2 * RUN_QUADS);
      const uint at = pixel0 + row, y = at / INPUT_W + PAD_Y, x = at % INPUT_W + PAD_X;
      if (at < planePixels && y < PADDED_H && x < PADDED_W) {
        const uint w = row * TILE_ROW + 4 * part, c = CHANNEL_RUN * run + 16 * part;
        uint64_t chunk;  // its 16-byte place
        if (CHANNELS_LAST) {
          chunk = uint64_t((batch * PADDED_H + y) * PADDED_W + x) * (channels / 16) + c / 16;
        } else {
          const uint m = batch * planePixels + at, g = c / p.groupChannels, kg = c % p.groupChannels;
          chunk = uint64_t(((g * M_TILES + m / BM) * K_TILES + kg / 32) * (2 * BM) + 2 * (m % BM) + (kg / 16) % 2);
        }
        ChunkRef(aOut + 16 * chunk).value = uvec4(tileWords[w], tileWords[w + 1], tileWords[w + 2], tileWords[w + 3]);
      }
    }
    barrier();  // the tile is read before the next overwrites it
  }
}
// The padded pixels outside the input, an item per 16
// channels: per image, the rows above and below the input's whole, then
// the columns left and right of it in the rows between.
uint channelsLastBorderPixels() {
  const uint yLo = min(PAD_Y, PADDED_H), yHi = min(PAD_Y + INPUT_H, PADDED_H);
  const uint xLo = min(PAD_X, PADDED_W), xHi = min(PAD_X + INPUT_W, PADDED_W);
  return (PADDED_H - (yHi - yLo)) * PADDED_W + (yHi - yLo) * (PADDED_W - (xHi - xLo));
}
void packChannelsLastBorder(uint item, uint channels, uint xzBits, uint64_t aOut) {
  const uint yLo = min(PAD_Y, PADDED_H), yHi = min(PAD_Y + INPUT_H, PADDED_H);
  const uint xLo = min(PAD_X, PADDED_W), xHi = min(PAD_X + INPUT_W, PADDED_W);
  const uint fullRows = PADDED_H - (yHi - yLo), sides = PADDED_W - (xHi - xLo);
  const uint chunk = item % (channels / 16), pixelOfAll = item / (channels / 16);
  const uint batch = pixelOfAll / channelsLastBorderPixels(), i = pixelOfAll % channelsLastBorderPixels();
  uint y, x;
  if (i < fullRows * PADDED_W) {
    const uint r = i / PADDED_W;
    y = r < yLo ? r : yHi + (r - yLo), x = i % PADDED_W;
  } else {
    const uint s = (i - fullRows * PADDED_W) % sides;
    y = yLo + (i - fullRows * PADDED_W) / sides, x = s < xLo ? s : xHi + (s - xLo);
  }
  const uint padded = (batch * PADDED_H + y) * PADDED_W + x;
  ChunkRef(aOut + uint64_t(padded) * channels + 16 * chunk).value = uvec4((xzBits ^ INPUT_FLIP) * 0x01010101u);
}
#endif

// The input as the im2col matrix reads it, and row m of that matrix: its
// pixel's offset (batch and group) and first tap.
struct InputView {
  uint64_t address;
  INDEX_T s0, s1, s2, s3;
  uint xzBits;
};
struct Im2colRow {
  INDEX_T base;
  COORD_T iy0, ix0;
};
Im2colRow im2colRow(InputView view, uint m, uint g, uint groupChannels) {
  const uint ox = m % OUTPUT_W, oy = (m / OUTPUT_W) % OUTPUT_H, batch = m / OUTPUT_W / OUTPUT_H;
  return Im2colRow(INDEX_T(batch) * view.s0 + INDEX_T(g * groupChannels) * view.s1,
                   COORD_T(oy) * coord(STRIDE_Y) - coord(PAD_Y), COORD_T(ox) * coord(STRIDE_X) - coord(PAD_X));
}
// Its byte k = (c, ky, kx), flipped; padding holds the input zero point.
uint im2colByte(InputView view, Im2colRow r, uint c, uint ky, uint kx) {
  const COORD_T iy = r.iy0 + COORD_T(ky * DILATION_Y), ix = r.ix0 + COORD_T(kx * DILATION_X);
  const bool inside = (Y_IN_RANGE || inRange(iy, INPUT_H)) && (X_IN_RANGE || inRange(ix, INPUT_W));
  const uint value =
      inside ? loadByte(view.address + uint64_t(r.base + INDEX_T(c) * view.s1 + INDEX_T(iy) * view.s2 + INDEX_T(ix) * view.s3))
             : view.xzBits;
  return value ^ INPUT_FLIP;
}

// The im2col matrix of a short K over many rows (VKDML_PACK_A_ROWS: the
// stem at batch 32) a row per item, all its K steps, so that each k's
// (c, ky, kx) is a constant once the loops are unrolled; neighbouring items
// write neighbouring rows of a block.
const bool A_ROWS = VKDML_PACK_A_ROWS(A_PACKING, K_TILES, M_TILES) && PLANE_WORDS == 0;  // else packPlaneWords
// Where rows are whole words (INPUT_WORD_ROWS) and a tap row's KW bytes are
// consecutive (DILATION_X 1, KW <= 8), each (c, ky) of a row is read as the
// aligned words around its KW bytes (at most WINDOW_WORDS), not KW byte
// gathers: a word outside [0, W) is padding, as its bytes are.
const bool WORD_TAPS = (FLAGS & INPUT_WORD_ROWS) != 0 && DILATION_X == 1 && KW <= 8;
const uint WINDOW_WORDS = (KW + 6) / 4;  // KW bytes from a byte offset of up to 3
const uint ROW_QWORDS = K_TILES * 4;     // a row's K steps, 8 bytes per uint64_t
// The low n bytes (a function: as a constant expression, widening a
// specialization constant to 64 bits would need SPIR-V 1.4).
uint64_t lowBytes(uint n) { return n >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * n)) - 1; }
void packARowWords(ConvParams p, uint item, InputView view, uint64_t aOut) {
  const uint row = item % BM, tile = (item / BM) % M_TILES, g = item / BM / M_TILES, m = tile * BM + row;
  uint64_t bytes[ROW_QWORDS];
  [[unroll]] for (uint i = 0; i < ROW_QWORDS; ++i) bytes[i] = 0;
  if (m < p.M) {
    const Im2colRow r = im2colRow(view, m, g, p.groupChannels);
    const COORD_T xAligned = r.ix0 & ~COORD_T(3);
    const uint shift = uint(r.ix0 & COORD_T(3)) * 8;
    const uint xzWord = view.xzBits * 0x01010101u;
    [[unroll]] for (uint c = 0; c < KG / KHW; ++c)
      [[unroll]] for (uint ky = 0; ky < KH; ++ky) {
        const COORD_T iy = r.iy0 + COORD_T(ky * DILATION_Y);
        const bool rowIn = Y_IN_RANGE || inRange(iy, INPUT_H);
        const INDEX_T at = r.base + INDEX_T(c) * view.s1 + INDEX_T(iy) * view.s2 + INDEX_T(xAligned);
        uint words[3] = uint[3](0, 0, 0);
        [[unroll]] for (uint j = 0; j < WINDOW_WORDS; ++j)
          words[j] = rowIn && inRange(xAligned + COORD_T(4 * j), INPUT_W)
                         ? WordRef(view.address + uint64_t(at + INDEX_T(4 * j))).value
                         : xzWord;
        const uint64_t low = packUint2x32(uvec2(words[0], words[1]));
        uint64_t taps = shift == 0 ? low : (low >> shift) | (uint64_t(words[2]) << (64 - shift));
        taps &= lowBytes(KW);
        // k = (c, ky, 0) .. (c, ky, KW - 1): bytes k of the row.
        const uint k = (c * KH + ky) * KW, q = k / 8, b = k % 8;
        bytes[q] |= taps << (8 * b);
        if (b + KW > 8) bytes[q + 1] |= taps >> (64 - 8 * b);
      }
    // Flipped where below Kg; the rest stays 0.
    const uint64_t flip = packUint2x32(uvec2(INPUT_FLIP * 0x01010101u));
    [[unroll]] for (uint i = 0; i < ROW_QWORDS; ++i) bytes[i] ^= flip & lowBytes(KG - min(KG, 8 * i));
  }
  [[unroll]] for (uint kt = 0; kt < K_TILES; ++kt)
    [[unroll]] for (uint side = 0; side < 2; ++side) {
      const uint i = 4 * kt + 2 * side;
      ChunkRef(aOut + 16 * uint64_t(((g * M_TILES + tile) * K_TILES + kt) * (2 * BM) + 2 * row + side)).value =
          uvec4(unpackUint2x32(bytes[i]), unpackUint2x32(bytes[i + 1]));
    }
}
void packARow(ConvParams p, uint item, InputView view, uint64_t aOut) {
  if (WORD_TAPS) {
    packARowWords(p, item, view, aOut);
    return;
  }
  const uint row = item % BM, tile = (item / BM) % M_TILES, g = item / BM / M_TILES, m = tile * BM + row;
  const Im2colRow r = im2colRow(view, m, g, p.groupChannels);
  [[unroll]] for (uint kt = 0; kt < K_TILES; ++kt)
    [[unroll]] for (uint side = 0; side < 2; ++side) {
      uvec4 words = uvec4(0);
      [[unroll]] for (uint e = 0; e < 16; ++e) {
        const uint k = kt * 32 + 16 * side + e;
        if (m < p.M && k < KG) words[e / 4] |= im2colByte(view, r, k / KHW, (k % KHW) / KW, k % KW) << (8 * (e % 4));
      }
      ChunkRef(aOut + 16 * uint64_t(((g * M_TILES + tile) * K_TILES + kt) * (2 * BM) + 2 * row + side)).value = words;
    }
}

// Channels-last B from spans (VKDML_PACK_B_SPANS): item i takes 16
// channels (side i % 2 of the row's 32-channel run) of padded row i / 2 of
// all groups' tiles, neighbouring items neighbouring chunks of one block
// per tap. Rows past Ng are 0, as in main.
const bool B_SPANS = VKDML_PACK_B_SPANS(A_PACKING, KHW, FLAGS);
void packFilterSpan(ConvParams p, uint item, uint64_t filterAddress, uint64_t bOut) {
  const uint side = item % 2, paddedRows = N_TILES * BN, groups = p.tiles / (p.mTiles * p.nTiles);
  const uint rowOfAll = (item / 2) % (groups * paddedRows), run = (item / 2) / (groups * paddedRows);
  const uint g = rowOfAll / paddedRows, n = rowOfAll % paddedRows, c0 = 32 * run + 16 * side;
  // The span: channels c0 .. c0 + 15, every tap of each, as 16-byte words.
  uvec4 span[PACK_SPAN_TAPS];
  [[unroll]] for (uint w = 0; w < KHW; ++w) span[w] = uvec4(0);
  if (n < p.groupOutputChannels) {
    const uint64_t at = filterAddress + uint64_t(INDEX_T(g * p.groupOutputChannels + n) * INDEX_T(p.filterStrides[0]) +
                                                 INDEX_T(c0 * KHW));
    if ((uint(at) & 15) == 0)
      [[unroll]] for (uint w = 0; w < KHW; ++w) span[w] = Word4Ref(at + 16 * w).value;
    else  // a filter binding not 16-byte aligned
      [[unroll]] for (uint b = 0; b < 16 * KHW; ++b) span[b / 16][(b / 4) % 4] |= loadByte(at + b) << (8 * (b % 4));
    [[unroll]] for (uint w = 0; w < KHW; ++w) span[w] ^= uvec4(FILTER_FLIP * 0x01010101u);
  }
  [[unroll]] for (uint tap = 0; tap < KHW; ++tap) {
    uvec4 words = uvec4(0);
    [[unroll]] for (uint e = 0; e < 16; ++e) {
      const uint b = e * KHW + tap;  // channel c0 + e, this tap
      words[e / 4] |= bitfieldExtract(span[b / 16][(b / 4) % 4], int(8 * (b % 4)), 8) << (8 * (e % 4));
    }
    const uint kt = (tap * p.groupChannels + c0) / 32;
    const uint chunk = (((g * N_TILES + n / BN) * K_TILES + kt) * BN + n % BN) * 2 + side;  // < p.totalChunks
    ChunkRef(bOut + 16 * uint64_t(chunk)).value = words;
  }
}

void main() {
  ConvParams p = ConvParams(pc.paramsAddress);
  const uint64_t inputAddress = tensorAddress(0), filterAddress = tensorAddress(2);
  const uint xzBits = (FLAGS & HAS_INPUT_ZERO_POINT) != 0 ? loadByte(tensorAddress(1)) : 0u;
  const uint M = p.M, Ng = p.groupOutputChannels, aChunks = p.aChunks, totalChunks = p.totalChunks;
  const INDEX_T inS0 = INDEX_T(p.inputStrides[0]), inS1 = INDEX_T(p.inputStrides[1]);
  const INDEX_T inS2 = INDEX_T(p.inputStrides[2]), inS3 = INDEX_T(p.inputStrides[3]);
  const INDEX_T fS0 = INDEX_T(p.filterStrides[0]), fS1 = INDEX_T(p.filterStrides[1]);
  const INDEX_T fS2 = INDEX_T(p.filterStrides[2]), fS3 = INDEX_T(p.filterStrides[3]);
  const uint64_t aOut = tensorAddress(p.scratchSlot) + p.packedAOffset;
  const uint64_t bOut = tensorAddress(p.packedBSlot) + p.packedBOffset;
  const uint groupChannels = p.groupChannels;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const InputView view = InputView(inputAddress, inS0, inS1, inS2, inS3, xzBits);
  // Where A goes by tiles over the first workgroups, the items after them
  // start on the invocations past those workgroups (the invocations
  // rotated): none waits for a tile's loads before its own, and at batch 1,
  // where the tiles are few, the pack ends sooner (bench/results/pack_pass.md).
  const bool A_TILES = CHANNELS_LAST || PLANE_WORDS == 1;
  const uint tileInvocations = A_TILES ? min(aChunks, gl_NumWorkGroups.x) * gl_WorkGroupSize.x : 0u;
  const uint first = (gl_GlobalInvocationID.x + stride - tileInvocations) % stride;
#if PLANE_WORDS
  packPlaneWords(p, inputAddress, aOut);
  const uint images = p.M / (OUTPUT_H * OUTPUT_W), channels = p.aChunks / (images * PLANE_TILES) * CHANNEL_RUN;
  if (CHANNELS_LAST)
    for (uint q = first; q < images * channelsLastBorderPixels() * (channels / 16); q += stride)
      packChannelsLastBorder(q, channels, xzBits, aOut);
#else
  if (CHANNELS_LAST) packChannelsLast(p, inputAddress, xzBits, aOut);
#endif
  if (A_ROWS)
    for (uint q = first; q < aChunks / (2 * K_TILES); q += stride) packARow(p, q, view, aOut);
  if (B_SPANS)
    for (uint q = first; q < (totalChunks - aChunks) / KHW; q += stride) packFilterSpan(p, q, filterAddress, bOut);
  // The output's zeros (K_SPLIT), 4 words per item: the output need not be 16-byte aligned.
  if (p.outputZeroWords > 0) {
    const uint64_t outputAddress = tensorAddress(4);
    for (uint q = first; q < (p.outputZeroWords + 3) / 4; q += stride)
      [[unroll]] for (uint e = 0; e < 4; ++e)
        if (4 * q + e < p.outputZeroWords) OutputRef(outputAddress + 4 * uint64_t(4 * q + e)).value = 0;
  }
  if (B_SPANS) return;
  // The other chunks, one per invocation (B's alone where A went by tiles or rows).
  for (uint q = first + (CHANNELS_LAST || A_ROWS || PLANE_WORDS == 1 ? aChunks : 0u); q < totalChunks; q += stride) {
    const bool isA = q < aChunks;
    const uint chunk = isA ? q : q - aChunks, rows = isA ? BM : BN;
    const uint row = (chunk / 2) % rows, block = chunk / 2 / rows;
    const uint kt = block % K_TILES, tile = (block / K_TILES) % (isA ? M_TILES : N_TILES);
    const uint g = block / K_TILES / (isA ? M_TILES : N_TILES);
    const uint kStart = kt * 32 + 16 * (chunk % 2);
    uint c = kStart / KHW, ky = (kStart % KHW) / KW, kx = kStart % KW;
    if (CHANNELS_LAST) {  // k = (ky * KW + kx) * groupChannels + c
      const uint tap = kStart / groupChannels;
      c = kStart % groupChannels, ky = tap / KW, kx = tap % KW;
    }
    uvec4 words = uvec4(0);
    if (isA) {
      const uint m = tile * BM + row;
      if (m < M) {
        const Im2colRow r = im2colRow(view, m, g, groupChannels);
        [[unroll]] for (uint e = 0; e < 16; ++e) {
          if (kStart + e < KG) {
            words[e / 4] |= im2colByte(view, r, c, ky, kx) << (8 * (e % 4));
            nextK(c, ky, kx, KW, KH);
          }
        }
      }
    } else {
      const uint n = tile * BN + row;
      if (n < Ng) {
        const INDEX_T base = INDEX_T(g * Ng + n) * fS0;
        // A whole chunk of a row whose k are consecutive bytes: one 16-byte
        // load where it is aligned (the filter of the GEMM-like 1x1 layers).
        if (K_CONTIGUOUS && kStart + 16 <= KG && ((uint(filterAddress) + uint(base) + kStart) & 15) == 0) {
          words = Word4Ref(filterAddress + uint64_t(base + INDEX_T(kStart))).value ^ uvec4(FILTER_FLIP * 0x01010101u);
        } else {
          [[unroll]] for (uint e = 0; e < 16; ++e) {
            if (kStart + e < KG) {
              const uint value = loadByte(filterAddress + uint64_t(base + INDEX_T(c) * fS1 + INDEX_T(ky) * fS2 +
                                                                   INDEX_T(kx) * fS3));
              words[e / 4] |= (value ^ FILTER_FLIP) << (8 * (e % 4));
              if (CHANNELS_LAST)
                ++c;  // a chunk's 16 k lie in one tap (groupChannels % 32 == 0)
              else
                nextK(c, ky, kx, KW, KH);
            }
          }
        }
      }
    }
    ChunkRef((isA ? aOut : bOut) + 16 * uint64_t(chunk)).value = words;
  }
}
