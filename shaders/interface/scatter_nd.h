// scatter_nd.comp (runtime/ops/scatter_nd.cpp): ScatterND's scatter, after a copy.
#ifndef VKDML_INTERFACE_SCATTER_ND_H
#define VKDML_INTERFACE_SCATTER_ND_H
#include "common.h"

VKDML_INTERFACE_BEGIN

// MODE_SCATTER writes the updates (and clears the mask words of their
// targets, leaving the mask zero for the next execution); MODE_MARK, the
// first of three dispatches, sets each target's bit so that the copy between
// them skips the slices the updates overwrite.
const uint MODE_SCATTER = 0u;
const uint MODE_MARK = 1u;

// The workgroup: x along a slice, y over tuples (runtime: rowGrid).
#define VKDML_SCATTER_ND_CONSTANTS(X)   \
  X(WORKGROUP_X, 0, workgroupX, 1)      \
  X(WORKGROUP_Y, 1, workgroupY, 1)      \
  X(MODE, 2, uint, 0)
#ifdef __cplusplus
VKDML_SPECIALIZATION(ScatterNdConstants, VKDML_SCATTER_ND_CONSTANTS)
#endif

VKDML_INTERFACE_END

#endif
