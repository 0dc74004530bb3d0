// fill.comp (runtime/core/fill.cpp): words of one slot set to a pattern.
#ifndef VKDML_INTERFACE_FILL_H
#define VKDML_INTERFACE_FILL_H
#include "common.h"

VKDML_INTERFACE_BEGIN

#define VKDML_FILL_CONSTANTS(X) X(WORKGROUP_SIZE, 0, workgroupX, 256)

VKDML_PARAMS(FillParams) {
  uint64_t offset;  // bytes into the slot's binding, a multiple of 4
  uint words;       // 4-byte words filled
  uint pattern;
  uint slot;  // read from the binding table when the dispatch runs
  uint pad;
};

#ifdef __cplusplus
VKDML_SPECIALIZATION(FillConstants, VKDML_FILL_CONSTANTS)
static_assert(sizeof(FillParams) == 24, "std430 layout of FillParams");
#endif

VKDML_INTERFACE_END

#endif
