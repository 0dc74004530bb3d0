// DirectML's data types as DxDispatch names and converts them: the names
// (with or without their DML_TENSOR_DATA_TYPE_ prefix; vkdml::toString writes
// them), element sizes, and binary16 conversions.
#pragma once

#include <vkdml/DirectML.h>
#include <vkdml/vkdml.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace dispatch {

// "FLOAT32" or "DML_TENSOR_DATA_TYPE_FLOAT32" (case-sensitive, as
// DxDispatch's strcmp) -> the type; UNKNOWN is a valid name.
std::optional<DML_TENSOR_DATA_TYPE> dataTypeFromName(const std::string& name);
bool isFloat(DML_TENSOR_DATA_TYPE type);
bool isSigned(DML_TENSOR_DATA_TYPE type);  // INT8..INT64

// float -> binary16 as DxDispatch converts (half.hpp 1.12 with its default
// HALF_ROUND_STYLE -1): the mantissa truncated toward zero, exponent
// overflow to infinity, NaN payloads shifted (a NaN whose payload lies in
// the low 13 bits becomes infinity, as there).
uint16_t halfTruncated(float value);
// float -> binary16, IEEE round to nearest even (DIAGONAL_MATRIX's FLOAT
// Value lowered to a FLOAT16 output).
uint16_t halfNearestEven(float value);
float halfToFloat(uint16_t bits);

}  // namespace dispatch
