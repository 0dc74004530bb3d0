// diagonal_matrix1.comp (runtime/ops/diagonal_matrix1.cpp).
#ifndef VKDML_INTERFACE_DIAGONAL_MATRIX1_H
#define VKDML_INTERFACE_DIAGONAL_MATRIX1_H
#include "common.h"

VKDML_INTERFACE_BEGIN

#define VKDML_DIAGONAL_MATRIX1_CONSTANTS(X) X(WORKGROUP_SIZE, 0, workgroupX, 1)

VKDML_PARAMS(DiagonalParams) {
  int64_t inputStrides[4];  // {batch0, batch1, y, x}, in elements; unused when there is no input
  int64_t outputStrides[4];
  uint sizes[4];            // {batch0, batch1, height, width}: ranks below 4 padded with leading 1s
  uint value[2];            // the first ELEMENT_BYTES bytes of DML_SCALAR_UNION, zero-extended
  int fillBegin;
  int fillEnd;
  uint rows;                // batch0 * batch1 * height
  uint hasInput;
  uint columnShift;         // log2 of the invocations along one row
  uint rowStride;           // rows walked at once by the whole grid
};

#ifdef __cplusplus
VKDML_SPECIALIZATION(DiagonalMatrix1Constants, VKDML_DIAGONAL_MATRIX1_CONSTANTS)
static_assert(sizeof(DiagonalParams) == 112 && offsetof(DiagonalParams, value) == 80, "std430 layout of DiagonalParams");
#endif

VKDML_INTERFACE_END

#endif
