// copy.comp (runtime/core/copy.cpp): the strided copy of segments.
#ifndef VKDML_INTERFACE_COPY_H
#define VKDML_INTERFACE_COPY_H
#include "common.h"

VKDML_INTERFACE_BEGIN

#define VKDML_COPY_CONSTANTS(X) X(WORKGROUP_SIZE, 0, workgroupX, 1)
#ifdef __cplusplus
VKDML_SPECIALIZATION(CopyConstants, VKDML_COPY_CONSTANTS)
#endif

VKDML_INTERFACE_END

#endif
