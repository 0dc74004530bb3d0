#include "data_types.hpp"

#include <cstring>

namespace dispatch {

namespace {
constexpr const char* kPrefix = "DML_TENSOR_DATA_TYPE_";

uint32_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
}  // namespace

std::optional<DML_TENSOR_DATA_TYPE> dataTypeFromName(const std::string& name) {
  std::string bare = name.rfind(kPrefix, 0) == 0 ? name.substr(std::strlen(kPrefix)) : name;
  // UINT4/INT4 parse in DxDispatch and then fail; vkdml has no 4-bit types.
  for (uint32_t bits = DML_TENSOR_DATA_TYPE_UNKNOWN; bits <= DML_TENSOR_DATA_TYPE_INT64; ++bits) {
    const auto type = static_cast<DML_TENSOR_DATA_TYPE>(bits);
    if (bare == vkdml::toString(type)) return type;
  }
  return std::nullopt;
}

bool isFloat(DML_TENSOR_DATA_TYPE type) {
  return type == DML_TENSOR_DATA_TYPE_FLOAT16 || type == DML_TENSOR_DATA_TYPE_FLOAT32 ||
         type == DML_TENSOR_DATA_TYPE_FLOAT64;
}

bool isSigned(DML_TENSOR_DATA_TYPE type) {
  return type == DML_TENSOR_DATA_TYPE_INT8 || type == DML_TENSOR_DATA_TYPE_INT16 ||
         type == DML_TENSOR_DATA_TYPE_INT32 || type == DML_TENSOR_DATA_TYPE_INT64;
}

uint16_t halfTruncated(float value) {
  const uint32_t bits = floatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t exponent = (bits >> 23) & 0xFF, mantissa = bits & 0x7FFFFF;
  if (exponent == 255) return static_cast<uint16_t>(sign | 0x7C00 | (mantissa >> 13));  // inf, NaN
  if (exponent > 142) return static_cast<uint16_t>(sign | 0x7C00);                      // overflow
  if (exponent >= 113)                                                                  // normal
    return static_cast<uint16_t>(sign | ((exponent - 112) << 10) | (mantissa >> 13));
  if (exponent >= 103)  // subnormal: the implicit bit and mantissa, shifted
    return static_cast<uint16_t>(sign | (1u << (exponent - 103)) | (mantissa >> (126 - exponent)));
  return sign;
}

uint16_t halfNearestEven(float value) {
  const uint32_t bits = floatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t exponent = (bits >> 23) & 0xFF, mantissa = bits & 0x7FFFFF;
  if (exponent == 255) return static_cast<uint16_t>(sign | 0x7C00 | (mantissa ? 0x200 : 0));
  if (exponent > 142) return static_cast<uint16_t>(sign | 0x7C00);
  // The value as a fixed-point count of 2^-24 (the smallest subnormal) units,
  // with `shift` extra fraction bits, rounded to nearest even.
  uint32_t significand, shift;
  if (exponent >= 113) {
    significand = mantissa | 0x800000;
    shift = 13;  // then the exponent is added back below
  } else {
    if (exponent < 102) return sign;
    significand = mantissa | 0x800000;
    shift = 126 - exponent;  // 14..24
  }
  uint32_t kept = significand >> shift, rest = significand & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  if (exponent >= 113) {
    // kept holds 11 bits (implicit one included); a carry out moves the exponent.
    uint32_t e = exponent - 112;
    if (kept == 0x800) {
      kept = 0x400;
      ++e;
    }
    if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00);
    return static_cast<uint16_t>(sign | (e << 10) | (kept & 0x3FF));
  }
  return static_cast<uint16_t>(sign | kept);  // a carry into 0x400 is the smallest normal
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF, bits;
  if (exponent == 31) {
    bits = sign | 0x7F800000 | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalize
    exponent = 113;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace dispatch
