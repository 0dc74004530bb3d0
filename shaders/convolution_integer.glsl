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

#include "interface/convolution_integer.h"  // ConvParams, its flags, the specialization constants

layout(buffer_reference, std430, buffer_reference_align = 1) readonly buffer ByteRef { uint8_t value; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer WordRef { uint value; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Word4Ref { uvec4 value; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer OutputRef { int value; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Output4Ref { ivec4 value; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer OutputReadRef { int value; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Output4ReadRef { ivec4 value; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer OutputAtomicRef { int value; };

uint loadByte(uint64_t address) { return uint(ByteRef(address).value); }

// The 4x4 byte transpose that turns 4 k-rows of 4 m (byte j of word i is
// (k i, m j)) into 4 m-rows of 4 k, in two rounds of 8- then 16-bit interleaves.
uvec4 transposeBytes(uvec4 w) {
  const uint lo = 0x00FF00FFu, hi = 0xFF00FF00u;
  const uint t0 = (w.x & lo) | ((w.y & lo) << 8);  // (k0,m0) (k1,m0) (k0,m2) (k1,m2)
  const uint t1 = ((w.x & hi) >> 8) | (w.y & hi);  // (k0,m1) (k1,m1) (k0,m3) (k1,m3)
  const uint t2 = (w.z & lo) | ((w.w & lo) << 8);  // likewise for k2, k3
  const uint t3 = ((w.z & hi) >> 8) | (w.w & hi);
  return uvec4((t0 & 0xFFFFu) | (t2 << 16), (t1 & 0xFFFFu) | (t3 << 16), (t0 >> 16) | (t2 & 0xFFFF0000u),
               (t1 >> 16) | (t3 & 0xFFFF0000u));
}

// One byte of a packed word as the operand's integer value.
int byteOf(uint word, uint i, bool signed_) {
  return signed_ ? bitfieldExtract(int(word), int(8 * i), 8) : int(bitfieldExtract(word, int(8 * i), 8));
}

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

