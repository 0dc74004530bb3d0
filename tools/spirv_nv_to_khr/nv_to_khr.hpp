// SPV_NV_cooperative_matrix -> SPV_KHR_cooperative_matrix, on SPIR-V words.
//
// glslang 12 (Debian bookworm) compiles GL_NV_cooperative_matrix but knows
// no GL_KHR_cooperative_matrix; the SPIR-V of the two extensions maps one to
// one, so the build compiles the NV form and translates it (main.cpp: the
// build-time tool vkdml-spirv-nv-to-khr; shaders/CMakeLists.txt runs it).
//
// What changes (SPV_KHR_cooperative_matrix, revision 10; every other
// instruction is kept word for word, in its place):
//   OpCapability CooperativeMatrixNV (5357)  -> CooperativeMatrixKHR (6022)
//     (the NV capability implicitly declares Shader, the KHR one does not:
//     an OpCapability Shader is added where the module relied on that)
//   OpExtension "SPV_NV_cooperative_matrix"  -> "SPV_KHR_cooperative_matrix"
//   OpTypeCooperativeMatrixNV (5358) R Component Scope Rows Columns
//     -> OpTypeCooperativeMatrixKHR (4456) R Component Scope Rows Columns Use
//     Use: MatrixAKHR 0 for a type that is operand A of a multiply-add,
//     MatrixBKHR 1 for operand B, MatrixAccumulatorKHR 2 for operand C or a
//     result; types converted into one another (OpConvert*, OpSConvert,
//     OpUConvert, OpFConvert, OpBitcast) share their Use (the KHR rule for
//     conversions); a type no multiply-add reaches is an accumulator.
//   OpCooperativeMatrixLoadNV (5359) RT R Pointer Stride ColumnMajor [Memory Access]
//     -> OpCooperativeMatrixLoadKHR (4457) RT R Pointer MemoryLayout Stride [Memory Operand]
//   OpCooperativeMatrixStoreNV (5360) Pointer Object Stride ColumnMajor [Memory Access]
//     -> OpCooperativeMatrixStoreKHR (4458) Pointer Object MemoryLayout Stride [Memory Operand]
//     MemoryLayout: RowMajorKHR 0 for OpConstantFalse, ColumnMajorKHR 1 for
//     OpConstantTrue; the memory operands are copied as they are.
//   OpCooperativeMatrixMulAddNV (5361) RT R A B C
//     -> OpCooperativeMatrixMulAddKHR (4459) RT R A B C [Cooperative Matrix Operands]
//     NV takes integer components as signed where their OpTypeInt has
//     Signedness 1; KHR takes the signedness from the operands mask:
//     MatrixASignedComponentsKHR 0x1, B 0x2, C 0x4, Result 0x8 (the mask is
//     written only where some bit is set: absent means NoneKHR).
//   OpCooperativeMatrixLengthNV (5362) -> OpCooperativeMatrixLengthKHR (4460)
// The Use and MemoryLayout values are OpConstants of the 32-bit integer type
// of the first matrix type's Scope: existing ones declared before the first
// matrix type, or new ones (ids from the header's bound, which grows)
// inserted just before it.
//
// Refused, with a TranslationError that says why: a module that does not
// parse (SPIRV-Tools), declares no CooperativeMatrixNV or already uses
// SPV_KHR_cooperative_matrix, lacks the VulkanMemoryModel capability (KHR
// requires it in shaders) or is older than SPIR-V 1.3; a matrix type whose
// Rows or Columns is no 32-bit integer constant instruction; one NV type
// (or types converted into one another) used in two roles, e.g. as both A
// and B of 16x16x16 multiplies: KHR needs one type per Use, and splitting a
// type (with everything typed by it) is not implemented; a ColumnMajor
// operand that is not OpConstantTrue/OpConstantFalse (a specialization
// constant); OpSpecConstantOp CooperativeMatrixLengthNV (which
// SPV_KHR_cooperative_matrix does not allow).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vkdml {
namespace spirv {

class TranslationError : public std::runtime_error {
 public:
  explicit TranslationError(const std::string& message) : std::runtime_error(message) {}
};

// The KHR module of an NV cooperative-matrix module (words in host order, as
// a .spv file holds them on a little-endian host). Throws TranslationError.
std::vector<uint32_t> translateNvCooperativeMatrixToKhr(const std::vector<uint32_t>& module);

// The opcodes, enumerants and values the translation deals in (the tests use them too).
namespace op {
constexpr uint32_t Capability = 17, Extension = 10, TypeInt = 21, ConstantTrue = 41, ConstantFalse = 42, Constant = 43,
                   SpecConstant = 50, SpecConstantOp = 52, Name = 5;
constexpr uint32_t TypeCooperativeMatrixNV = 5358, CooperativeMatrixLoadNV = 5359, CooperativeMatrixStoreNV = 5360,
                   CooperativeMatrixMulAddNV = 5361, CooperativeMatrixLengthNV = 5362;
constexpr uint32_t TypeCooperativeMatrixKHR = 4456, CooperativeMatrixLoadKHR = 4457, CooperativeMatrixStoreKHR = 4458,
                   CooperativeMatrixMulAddKHR = 4459, CooperativeMatrixLengthKHR = 4460;
}  // namespace op
namespace capability {
constexpr uint32_t Shader = 1, VulkanMemoryModel = 5345, CooperativeMatrixNV = 5357, CooperativeMatrixKHR = 6022;
}
enum MatrixUse : uint32_t { MatrixA = 0, MatrixB = 1, MatrixAccumulator = 2 };
enum MatrixLayout : uint32_t { RowMajor = 0, ColumnMajor = 1 };
enum MatrixOperands : uint32_t {
  MatrixASigned = 0x1,
  MatrixBSigned = 0x2,
  MatrixCSigned = 0x4,
  MatrixResultSigned = 0x8,
};
constexpr const char* kNvExtension = "SPV_NV_cooperative_matrix";
constexpr const char* kKhrExtension = "SPV_KHR_cooperative_matrix";

}  // namespace spirv
}  // namespace vkdml
