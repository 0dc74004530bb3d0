// Packed 4x8-bit dot products (format 0: PackedVectorFormat4x8Bit), through
// GL_EXT_spirv_intrinsics: glslang 12 has no GL_EXT_integer_dot_product.
// Shared by the dot-product kernels (convolution_integer.comp with
// DOT_PRODUCT, convolution_integer_dot.comp), which define INPUT_SIGNED and
// FILTER_SIGNED, and enable GL_EXT_spirv_intrinsics.

spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot(uint a, uint b, spirv_literal int format);
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4451)
uint udot(uint a, uint b, spirv_literal int format);
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4452)
int sudot(uint signedA, uint unsignedB, spirv_literal int format);

// The product of 4 k values of the input word x and the filter word w.
int dotPacked(uint x, uint w) {
#if INPUT_SIGNED && FILTER_SIGNED
  return sdot(x, w, 0);
#elif INPUT_SIGNED
  return sudot(x, w, 0);
#elif FILTER_SIGNED
  return sudot(w, x, 0);
#else
  return int(udot(x, w, 0));
#endif
}

// The sum of a word's 4 bytes: one dot product with bytes of 1.
int wordSum(uint word, bool signed_) { return signed_ ? sdot(word, 0x01010101u, 0) : int(udot(word, 0x01010101u, 0)); }
