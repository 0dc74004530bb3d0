// The interface between the host and the kernels, declared once for both:
// GLSL (shaders/*.comp include shaders/interface/<family>.h) and C++
// (runtime/, which also static_asserts the layouts). What the C++ side of
// these macros makes of a declaration is in the __cplusplus branches.
//
// - Parameter blocks: VKDML_PARAMS(Name) { fields };  a std430 block read
//   through a buffer reference in GLSL, a struct in C++. A trailing
//   runtime-sized array is VKDML_TRAILING_ARRAY(Type, name) (absent in C++).
// - Specialization constants: a list macro of X(name, constant_id, kind,
//   default), kind one of uint, bool, workgroupX, workgroupY (the workgroup
//   size's local_size_*_id) or param (a uint that a kernel may declare as a
//   Private variable instead, set from its parameter block: it redefines
//   VKDML_SPEC_param_). VKDML_SPECIALIZATION(Struct, LIST) declares the
//   constants in GLSL; in C++ a struct with one uint32_t field per name and
//   specializationOf(struct), its (constant_id, value) pairs, from which the
//   VkSpecializationMapEntry array is built: the host sets constants by name.
// - Constants: `const uint NAME = value;` reads the same in both.
#ifndef VKDML_INTERFACE_COMMON_H
#define VKDML_INTERFACE_COMMON_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#define VKDML_INTERFACE_BEGIN \
  namespace vkdml {           \
  namespace shader {
#define VKDML_INTERFACE_END \
  }                         \
  }

VKDML_INTERFACE_BEGIN
using uint = uint32_t;
// (constant_id, value) pairs of a dispatch's specialization constants.
using Specialization = std::vector<std::pair<uint32_t, uint32_t>>;
constexpr uint max(uint a, uint b) { return a > b ? a : b; }
VKDML_INTERFACE_END

#define VKDML_PARAMS(name) struct name
#define VKDML_TRAILING_ARRAY(type, name)
#define VKDML_SPEC_FIELD_(name, id, kind, value) uint32_t name = value;
#define VKDML_SPEC_PAIR_(name, id, kind, value) {id, s.name},
#define VKDML_SPECIALIZATION(Struct, LIST) \
  struct Struct {                          \
    LIST(VKDML_SPEC_FIELD_)                \
  };                                       \
  inline Specialization specializationOf(const Struct& s) { return {LIST(VKDML_SPEC_PAIR_)}; }

#else  // GLSL

#define VKDML_INTERFACE_BEGIN
#define VKDML_INTERFACE_END
#define VKDML_PARAMS(name) layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer name
#define VKDML_TRAILING_ARRAY(type, name) type name[];
#define VKDML_SPEC_uint_(name, id, value) layout(constant_id = id) const uint name = value;
#define VKDML_SPEC_bool_(name, id, value) layout(constant_id = id) const bool name = value;
#define VKDML_SPEC_param_(name, id, value) layout(constant_id = id) const uint name = value;
#define VKDML_SPEC_workgroupX_(name, id, value) layout(local_size_x_id = id) in;
#define VKDML_SPEC_workgroupY_(name, id, value) layout(local_size_y_id = id) in;
#define VKDML_SPEC_DECLARE_(name, id, kind, value) VKDML_SPEC_##kind##_(name, id, value)
#define VKDML_SPECIALIZATION(Struct, LIST) LIST(VKDML_SPEC_DECLARE_)

#endif

// The most dimensions of a tensor (DML_TENSOR_DIMENSION_COUNT_MAX1), the
// length of the parameter blocks' per-dimension arrays.
VKDML_INTERFACE_BEGIN
const uint MAX_DIMS = 8u;
VKDML_INTERFACE_END

// The push constants of every kernel: the device addresses of the
// dispatch's parameter block and of the binding table (shaders/common.glsl).
VKDML_INTERFACE_BEGIN
#ifdef __cplusplus
struct PushConstants {
#else
layout(push_constant) uniform PushConstants {
#endif
  uint64_t paramsAddress;
  uint64_t bindingsAddress;
}
#ifndef __cplusplus
pc
#endif
;
VKDML_INTERFACE_END

#endif
