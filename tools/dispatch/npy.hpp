// NumPy .npy files (format versions 1 to 3), as DxDispatch reads and writes
// them: C order only; dtype codes b B ? h H i u f d with optional sizes and
// byte order (<, >, =, |); big-endian data is byte-swapped.
#pragma once

#include <vkdml/DirectML.h>

#include <cstdint>
#include <vector>

namespace dispatch {

struct NpyArray {
  DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
  std::vector<uint32_t> shape;
  std::vector<uint8_t> data;  // exactly prod(shape) elements, little-endian
};

// Throws std::runtime_error saying what is wrong with the file. A file
// shorter than its shape is an error (DxDispatch zero-fills it); bytes past
// the shape are ignored.
NpyArray readNpy(const std::vector<uint8_t>& file);
// Version 1.0, as DxDispatch writes: {'descr':'<f4', 'fortran_order':False,
// 'shape':(2,3,), } padded with spaces to a multiple of 64 bytes, then '\n'
// (version 2.0 where the header passes version 1's 65535 bytes), then the
// shape's elements: the first of `data`. Throws std::invalid_argument for
// a shape larger than the data, or a type with no NumPy code.
std::vector<uint8_t> writeNpy(DML_TENSOR_DATA_TYPE type, const std::vector<uint64_t>& shape,
                              const std::vector<uint8_t>& data);

}  // namespace dispatch
