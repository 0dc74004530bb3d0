#version 460
#extension GL_GOOGLE_include_directive : require
// DML_DIAGONAL_MATRIX1: every output element (..., y, x) is Value where the
// diagonal band test selects it, else the input's element (or 0). Value and
// the input are moved as bits: a masked NaN or infinity never leaks through.
#include "common.glsl"

layout(local_size_x_id = 0) in;

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer DiagonalParams {
  int64_t inputStrides[4];  // {batch0, batch1, y, x}, in elements; unused when there is no input
  int64_t outputStrides[4];
  uint sizes[4];            // {batch0, batch1, height, width}: ranks below 4 padded with leading 1s
  uvec2 value;              // the first ELEMENT_BYTES bytes of DML_SCALAR_UNION, zero-extended
  int fillBegin;
  int fillEnd;
  uint elementCount;
  uint hasInput;
};

ELEMENT_T valueBits(uvec2 v) {
#if ELEMENT_BYTES == 8
  return v;
#else
  return v.x;  // the host zero-extends Value's bytes
#endif
}

void main() {
  DiagonalParams p = DiagonalParams(pc.paramsAddress);
  const uint total = p.elementCount;  // < 2^32: the loop runs in 32 bits (see copy.comp)
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint64_t outputAddress = tensorAddress(1);  // slot 0 is the input, present or not
  const uint64_t inputAddress = p.hasInput != 0 ? tensorAddress(0) : 0;
  const ELEMENT_T value = valueBits(p.value);
  // The band test in 64 bits: x - y spans about +-2^32, Begin/End the whole INT32 range.
  const int64_t begin = p.fillBegin, end = p.fillEnd;
  const bool inverted = end >= begin;
  for (uint i = gl_GlobalInvocationID.x; i < total; i += stride) {
    uint rest = i;
    const uint x = rest % p.sizes[3];
    rest /= p.sizes[3];
    const uint y = rest % p.sizes[2];
    rest /= p.sizes[2];
    const uint b1 = rest % p.sizes[1];
    const uint b0 = rest / p.sizes[1];
    const int64_t topX = int64_t(x) - int64_t(y);
    const bool useValue = inverted != (topX >= begin) != (topX < end);
    INDEX_T outputIndex = INDEX_T(b0) * INDEX_T(p.outputStrides[0]) + INDEX_T(b1) * INDEX_T(p.outputStrides[1]) +
                          INDEX_T(y) * INDEX_T(p.outputStrides[2]) + INDEX_T(x) * INDEX_T(p.outputStrides[3]);
    ELEMENT_T result = value;
    if (!useValue) {
      result = ELEMENT_T(0);
      if (p.hasInput != 0) {
        INDEX_T inputIndex = INDEX_T(b0) * INDEX_T(p.inputStrides[0]) + INDEX_T(b1) * INDEX_T(p.inputStrides[1]) +
                             INDEX_T(y) * INDEX_T(p.inputStrides[2]) + INDEX_T(x) * INDEX_T(p.inputStrides[3]);
        result = loadElement(inputAddress, inputIndex);
      }
    }
    storeElement(outputAddress, outputIndex, result);
    if (i >= total - stride) break;  // i + stride would wrap past 2^32
  }
}
