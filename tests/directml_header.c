/* DirectML.h compiled as C, with the includer's own Windows integer types
   (VKDML_NO_WINDOWS_TYPES): "header: ..." in directml_header_test.cpp calls
   this. */
#include <stdint.h>

typedef uint8_t BYTE;
typedef int8_t INT8;
typedef uint8_t UINT8;
typedef int16_t INT16;
typedef uint16_t UINT16;
typedef int32_t INT;
typedef uint32_t UINT;
typedef int32_t INT32;
typedef uint32_t UINT32;
typedef int64_t INT64;
typedef uint64_t UINT64;
typedef float FLOAT;
#define VKDML_NO_WINDOWS_TYPES
#include <vkdml/DirectML.h>

UINT64 vkdmlHeaderFromC(void);

/* A 3x5 INT16 tensor of rows 8 elements apart, plus the largest rank. */
UINT64 vkdmlHeaderFromC(void) {
  UINT sizes[2] = {3, 5};
  UINT strides[2] = {8, 1};
  DML_BUFFER_TENSOR_DESC desc = {DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_FLAG_NONE, 2, sizes, strides, 0, 0};
  desc.TotalTensorSizeInBytes = vkdmlCalcBufferTensorSize(desc.DataType, desc.DimensionCount, desc.Sizes, desc.Strides);
  return desc.TotalTensorSizeInBytes + DML_TENSOR_DIMENSION_COUNT_MAX1;
}
