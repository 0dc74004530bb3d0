// diagonal_matrix1.comp (runtime/diagonal_matrix1.cpp).
#ifndef VKDML_INTERFACE_DIAGONAL_MATRIX1_H
#define VKDML_INTERFACE_DIAGONAL_MATRIX1_H
#include "common.h"

VKDML_INTERFACE_BEGIN

#define VKDML_DIAGONAL_MATRIX1_CONSTANTS(X) X(WORKGROUP_SIZE, 0, workgroupX, 1)
#ifdef __cplusplus
VKDML_SPECIALIZATION(DiagonalMatrix1Constants, VKDML_DIAGONAL_MATRIX1_CONSTANTS)
#endif

VKDML_INTERFACE_END

#endif
