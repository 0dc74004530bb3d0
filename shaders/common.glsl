// Shared by every vkdml kernel. Kernels take no descriptor sets: the push
// constants carry the device address of the dispatch's parameter block and of
// the binding table, which holds one device address per tensor slot (inputs,
// then outputs; 0 for an absent optional tensor). Device addresses lift
// maxStorageBufferRange: a tensor may span up to 2^32 - 1 elements.
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

#include "interface/common.h"  // PushConstants pc

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer BindingTable {
  uint64_t address[];
};

uint64_t tensorAddress(uint slot) { return BindingTable(pc.bindingsAddress).address[slot]; }

// Element access for ELEMENT_BYTES = 1, 2, 4 or 8: data movement only moves
// bits, so every type of a size shares one variant. Addresses are computed in
// 64 bits: an array index in an access chain is signed 32-bit.
// 1- and 2-byte elements travel as uint in registers, 8/16-bit types appear
// only in storage: the kernels then need 8/16-bit storage access but not the
// shaderInt8/shaderInt16 arithmetic features.
#ifdef ELEMENT_BYTES
#if ELEMENT_BYTES == 1
#define STORAGE_T uint8_t
#define ELEMENT_T uint
#elif ELEMENT_BYTES == 2
#define STORAGE_T uint16_t
#define ELEMENT_T uint
#elif ELEMENT_BYTES == 4
#define STORAGE_T uint
#define ELEMENT_T uint
#elif ELEMENT_BYTES == 8  // one 64-bit access: a uvec2 store could tear (ScatterND's duplicate targets)
#define STORAGE_T uint64_t
#define ELEMENT_T uint64_t
#elif ELEMENT_BYTES == 16  // contiguous runs moved as vectors (copy.comp)
#define STORAGE_T uvec4
#define ELEMENT_T uvec4
#else
#error ELEMENT_BYTES must be 1, 2, 4, 8 or 16
#endif
layout(buffer_reference, std430, buffer_reference_align = ELEMENT_BYTES) buffer ElementRef {
  STORAGE_T value;
};
ELEMENT_T loadElement(uint64_t base, uint64_t index) {
  return ELEMENT_T(ElementRef(base + index * ELEMENT_BYTES).value);
}
void storeElement(uint64_t base, uint64_t index, ELEMENT_T value) {
  ElementRef(base + index * ELEMENT_BYTES).value = STORAGE_T(value);
}
#endif

// Offsets in elements: 32-bit arithmetic when every tensor's footprint fits
// in 2^32 elements (wrapping is then harmless: the final offsets are in
// range), 64-bit otherwise.
#if INDEX_BITS == 64
#define INDEX_T uint64_t
#else
#define INDEX_T uint
#endif

// How many of start, start + stride, ... lie below `count`: loops run that
// many iterations, so no index ever steps past 2^32.
uint stridedCount(uint start, uint count, uint stride) {
  return start < count ? (count - 1 - start) / stride + 1 : 0;
}
