// A resource's values as DxDispatch's print command writes them: C++
// stream defaults (6 significant digits for floats, FLOAT16 through float),
// INT8/UINT8 written as characters (DxDispatch streams int8_t/uint8_t as
// char; mirrored so that output compares byte for byte; "verbose" shows
// their hex too).
#pragma once

#include <vkdml/DirectML.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dispatch {

// "Resource 'NAME': v0, v1, ..." or, verbose, "Resource 'NAME':\n" then
// "[i] value (0xBITS)\n" per element; `count` elements of `type` from
// `bytes`. Throws std::invalid_argument for a type without values (UNKNOWN).
std::string formatResource(const std::string& name, DML_TENSOR_DATA_TYPE type, const std::vector<uint8_t>& bytes,
                           uint64_t count, bool verbose);

}  // namespace dispatch
