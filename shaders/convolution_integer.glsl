// What both convolution kernels share (convolution_integer.comp, the
// portable and dot-product paths; convolution_integer_coopmat.comp, the
// cooperative-matrix path): the parameter block, byte access, and k stepping.
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

#if INDEX_BITS == 64
#define COORD_T int64_t
#else
#define COORD_T int
#endif

// Mirrors ConvolutionIntegerParams in runtime/convolution_integer.cpp (std430).
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer ConvParams {
  uint64_t inputStrides[4];    // N, C, H, W (3-D tensors: H stride 0)
  uint64_t filterStrides[4];   // OC, C/G, KH, KW
  uint64_t outputStrides[4];   // N, OC, OH, OW
  uint64_t filterZeroPointStride;  // between output channels; 0 per tensor
  uint inputH, inputW;
  uint outputH, outputW;
  uint kernelH, kernelW;
  uint strideY, strideX;
  uint dilationY, dilationX;
  uint padY, padX;             // start padding
  uint groupChannels;          // C/G
  uint groupOutputChannels;    // Ng = OC/G
  uint groupK;                 // Kg = C/G*KH*KW
  uint M;                      // N*OH*OW
  uint mTiles, nTiles, tiles;  // tiles = mTiles * nTiles * G
  uint flags;
  // Packed operands (convolution_integer_pack.comp), in the scratch slot:
  // where A's and B's blocks start, in bytes.
  uint64_t packedAOffset, packedBOffset;
  uint scratchSlot;
  uint aChunks, totalChunks;  // 16-byte chunks of A, of A and B
  uint kTiles;                // K steps of 32
  // K_CHUNKED: the share of K this dispatch adds up, k in [kBegin, kBegin + kLength).
  uint kBegin, kLength;
};
const uint HAS_INPUT_ZERO_POINT = 1u;
const uint HAS_FILTER_ZERO_POINT = 2u;
const uint INPUT_SIGNED_FLAG = 4u;    // INT8 input (the cooperative-matrix kernel reads signedness here)
const uint FILTER_SIGNED_FLAG = 8u;   // INT8 filter
const uint INPUT_ROWS_CONTIGUOUS = 16u;  // W stride 1, x stride 1, OW % 4 == 0: 4 consecutive m are 4 consecutive bytes
// Read by the cooperative-matrix kernel alone, whose flags are a
// specialization constant:
const uint TAPS_Y_IN_RANGE = 32u;       // every tap's y lies in [0, H): no padding along y
const uint TAPS_X_IN_RANGE = 64u;       // likewise along x
const uint FILTER_K_CONTIGUOUS = 128u;  // a filter row's k are consecutive bytes
const uint K_WHOLE_STEPS = 256u;        // Kg is a multiple of the kernel's K step (32)
// The output's m (OW % 4 == 0, W stride 1, other strides multiples of 4):
// 4 consecutive m from a multiple of 4 are 4 consecutive, 16-byte aligned
// int32 (given an aligned base).
const uint OUTPUT_M_QUADS = 512u;
const uint K_TWO_STEPS = 1024u;  // Kg takes exactly two K steps of the kernel
// How the host split the work where one invocation's loops would run too
// long (runtime/convolution_integer.cpp, splitGemm), for both kernels
// specialization constants (0 as always elsewhere): K_CHUNKED, the dispatch
// takes a chunk of K (ConvParams.kBegin, kLength), one dispatch per chunk;
// ACCUMULATE, it adds its sums to the output's values (a later chunk: 32-bit
// two's complement, the total is the exact sum modulo 2^32 however K is
// split); GRID_ROWS, its workgroups come in rows (groupIndex), for huge
// tile counts.
const uint ACCUMULATE = 2048u;
const uint K_CHUNKED = 4096u;
const uint GRID_ROWS = 8192u;

layout(buffer_reference, std430, buffer_reference_align = 1) readonly buffer ByteRef { uint8_t value; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer WordRef { uint value; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Word4Ref { uvec4 value; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer OutputRef { int value; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Output4Ref { ivec4 value; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer OutputReadRef { int value; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Output4ReadRef { ivec4 value; };

uint loadByte(uint64_t address) { return uint(ByteRef(address).value); }

// Sum of the four bytes of a word: lanes of 16 bits, then the signed
// correction (each negative byte read unsigned is 256 too large).
int byteSum(uint word, bool signed_) {
  uint s = (word & 0x00FF00FFu) + ((word >> 8) & 0x00FF00FFu);
  int sum = int((s & 0xFFFFu) + (s >> 16));
  return signed_ ? sum - 256 * bitCount(word & 0x80808080u) : sum;
}
int byteSum(uvec4 v, bool signed_) {
  return byteSum(v.x, signed_) + byteSum(v.y, signed_) + byteSum(v.z, signed_) + byteSum(v.w, signed_);
}

// Steps (c, ky, kx) to the next k.
void nextK(inout uint c, inout uint ky, inout uint kx, uint kernelW, uint kernelH) {
  if (++kx == kernelW) {
    kx = 0;
    if (++ky == kernelH) {
      ky = 0;
      ++c;
    }
  }
}

bool inRange(COORD_T v, uint size) { return v >= 0 && v < COORD_T(size); }

// The workgroup's place in a grid of one or more rows of workgroups (the
// host adds rows where one would leave a workgroup too many tiles).
uint groupIndex() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
uint groupCount() { return gl_NumWorkGroups.x * gl_NumWorkGroups.y; }

