#version 460
#extension GL_GOOGLE_include_directive : require
// DML_DIAGONAL_MATRIX1: every output element (..., y, x) is Value where the
// diagonal band test selects it, else the input's element (or 0). Value and
// the input are moved as bits: a masked NaN or infinity never leaks through.
#include "common.glsl"
#include "interface/diagonal_matrix1.h"

// Rows of the matrices are walked as in copy.comp: an invocation index splits
// into a lane along a row and a row, so each row's coordinates and band
// limits are worked out once.
VKDML_SPECIALIZATION(DiagonalMatrix1Constants, VKDML_DIAGONAL_MATRIX1_CONSTANTS)

ELEMENT_T valueBits(uvec2 v) {
#if ELEMENT_BYTES == 8
  return packUint2x32(v);
#else
  return v.x;  // the host zero-extends Value's bytes
#endif
}

void main() {
  DiagonalParams p = DiagonalParams(pc.paramsAddress);
  const uint64_t outputAddress = tensorAddress(1);  // slot 0 is the input, present or not
  const uint64_t inputAddress = p.hasInput != 0 ? tensorAddress(0) : 0;
  const ELEMENT_T value = valueBits(uvec2(p.value[0], p.value[1]));
  const bool inverted = p.fillEnd >= p.fillBegin;
  const uint width = p.sizes[3];
  const uint columnStride = 1u << p.columnShift;
  const uint firstColumn = gl_GlobalInvocationID.x & (columnStride - 1);
  const uint firstRow = gl_GlobalInvocationID.x >> p.columnShift;
  const uint myRows = stridedCount(firstRow, p.rows, p.rowStride);
  for (uint r = 0; r < myRows; ++r) {
    const uint row = firstRow + r * p.rowStride;
    const uint y = row % p.sizes[2];
    const uint b1 = (row / p.sizes[2]) % p.sizes[1];
    const uint b0 = row / p.sizes[2] / p.sizes[1];
    // topX = x - y >= Begin  <=>  x >= y + Begin, and topX < End <=> x < y + End,
    // with the limits (64-bit: Begin and End span INT32) clamped into [0, width].
    const uint atLeast = uint(clamp(int64_t(y) + p.fillBegin, int64_t(0), int64_t(width)));
    const uint below = uint(clamp(int64_t(y) + p.fillEnd, int64_t(0), int64_t(width)));
    const INDEX_T outputRow = INDEX_T(b0) * INDEX_T(p.outputStrides[0]) + INDEX_T(b1) * INDEX_T(p.outputStrides[1]) +
                              INDEX_T(y) * INDEX_T(p.outputStrides[2]);
    const INDEX_T inputRow = INDEX_T(b0) * INDEX_T(p.inputStrides[0]) + INDEX_T(b1) * INDEX_T(p.inputStrides[1]) +
                             INDEX_T(y) * INDEX_T(p.inputStrides[2]);
    const INDEX_T outputStep = INDEX_T(p.outputStrides[3]), inputStep = INDEX_T(p.inputStrides[3]);
    const uint myColumns = stridedCount(firstColumn, width, columnStride);
    for (uint c = 0; c < myColumns; ++c) {
      const uint x = firstColumn + c * columnStride;
      const bool useValue = inverted != (x >= atLeast) != (x < below);
      // Masked positions take Value's bits without reading the input.
      ELEMENT_T result = value;
      if (!useValue) result = p.hasInput != 0 ? loadElement(inputAddress, inputRow + INDEX_T(x) * inputStep) : ELEMENT_T(0);
      storeElement(outputAddress, outputRow + INDEX_T(x) * outputStep, result);
    }
  }
}
