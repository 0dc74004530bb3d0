// DirectML's descriptor types, mirrored so that descriptor code written for
// DirectML.h compiles unchanged against vkdml. Names, field order, meaning and
// enum values follow DirectML.h (see ../shared/spec/OPERATORS.md). Only what
// the five vkdml operators need is declared; nothing here depends on Windows.
#ifndef VKDML_DIRECTML_H
#define VKDML_DIRECTML_H

#include <stddef.h>
#include <stdint.h>

// Windows' integer types: from <windows.h> on Windows, declared here
// elsewhere. Define VKDML_NO_WINDOWS_TYPES where the includer has declared
// them itself (BYTE, INT8 ... UINT64, FLOAT): then this header declares and
// includes none.
#if defined(VKDML_NO_WINDOWS_TYPES)
#elif defined(_WIN32)
#include <windows.h>
#else
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
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Constants of type UINT, as DirectML.h declares them (std::max(aUint,
   DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) compiles). */
static const UINT DML_TENSOR_DIMENSION_COUNT_MAX = 5;
static const UINT DML_TENSOR_DIMENSION_COUNT_MAX1 = 8;
static const UINT DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16;
static const UINT DML_TEMPORARY_BUFFER_ALIGNMENT = 256;
static const UINT DML_PERSISTENT_BUFFER_ALIGNMENT = 256;

typedef enum DML_TENSOR_DATA_TYPE {
  DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
  DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
  DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
  DML_TENSOR_DATA_TYPE_UINT32 = 3,
  DML_TENSOR_DATA_TYPE_UINT16 = 4,
  DML_TENSOR_DATA_TYPE_UINT8 = 5,
  DML_TENSOR_DATA_TYPE_INT32 = 6,
  DML_TENSOR_DATA_TYPE_INT16 = 7,
  DML_TENSOR_DATA_TYPE_INT8 = 8,
  DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
  DML_TENSOR_DATA_TYPE_UINT64 = 10,
  DML_TENSOR_DATA_TYPE_INT64 = 11,
} DML_TENSOR_DATA_TYPE;

typedef enum DML_TENSOR_TYPE {
  DML_TENSOR_TYPE_INVALID = 0,
  DML_TENSOR_TYPE_BUFFER = 1,
} DML_TENSOR_TYPE;

/* In C++ of a fixed 32-bit type, as MSVC gives DirectML's enums, so that ~
   and ^ of flags are values of the type. */
#ifdef __cplusplus
typedef enum DML_TENSOR_FLAGS : UINT {
#else
typedef enum DML_TENSOR_FLAGS {
#endif
  DML_TENSOR_FLAG_NONE = 0x0,
  DML_TENSOR_FLAG_OWNED_BY_DML = 0x1,
} DML_TENSOR_FLAGS;

typedef enum DML_FEATURE_LEVEL {
  DML_FEATURE_LEVEL_1_0 = 0x1000,
  DML_FEATURE_LEVEL_2_0 = 0x2000,
  DML_FEATURE_LEVEL_2_1 = 0x2100,
  DML_FEATURE_LEVEL_3_0 = 0x3000,
  DML_FEATURE_LEVEL_3_1 = 0x3100,
  DML_FEATURE_LEVEL_4_0 = 0x4000,
  DML_FEATURE_LEVEL_4_1 = 0x4100,
  DML_FEATURE_LEVEL_5_0 = 0x5000,
  DML_FEATURE_LEVEL_5_1 = 0x5100,
} DML_FEATURE_LEVEL;

typedef struct DML_BUFFER_TENSOR_DESC {
  DML_TENSOR_DATA_TYPE DataType;
  DML_TENSOR_FLAGS Flags;
  UINT DimensionCount;
  const UINT* Sizes;
  const UINT* Strides; /* optional: NULL means packed row-major */
  UINT64 TotalTensorSizeInBytes;
  UINT GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct DML_TENSOR_DESC {
  DML_TENSOR_TYPE Type;
  const void* Desc;
} DML_TENSOR_DESC;

typedef enum DML_OPERATOR_TYPE {
  DML_OPERATOR_INVALID = 0,
  DML_OPERATOR_SLICE = 60,
  DML_OPERATOR_SPLIT = 62,
  DML_OPERATOR_JOIN = 63,
  DML_OPERATOR_DIAGONAL_MATRIX = 93,
  DML_OPERATOR_GATHER_ND = 108,
  DML_OPERATOR_SCATTER_ND = 109,
  DML_OPERATOR_SLICE1 = 111,
  DML_OPERATOR_CONVOLUTION_INTEGER = 119,
  DML_OPERATOR_DIAGONAL_MATRIX1 = 163,
} DML_OPERATOR_TYPE;

typedef struct DML_OPERATOR_DESC {
  DML_OPERATOR_TYPE Type;
  const void* Desc;
} DML_OPERATOR_DESC;

typedef union DML_SCALAR_UNION {
  BYTE Bytes[8];
  INT8 Int8;
  UINT8 UInt8;
  INT16 Int16;
  UINT16 UInt16;
  INT32 Int32;
  UINT32 UInt32;
  INT64 Int64;
  UINT64 UInt64;
  FLOAT Float32;
  double Float64;
} DML_SCALAR_UNION;

typedef struct DML_SLICE1_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* OutputTensor;
  UINT DimensionCount;
  const UINT* InputWindowOffsets;
  const UINT* InputWindowSizes;
  const INT* InputWindowStrides;
} DML_SLICE1_OPERATOR_DESC;

typedef struct DML_JOIN_OPERATOR_DESC {
  UINT InputCount;
  const DML_TENSOR_DESC* InputTensors;
  const DML_TENSOR_DESC* OutputTensor;
  UINT Axis;
} DML_JOIN_OPERATOR_DESC;

typedef struct DML_SCATTER_ND_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* IndicesTensor;
  const DML_TENSOR_DESC* UpdatesTensor;
  const DML_TENSOR_DESC* OutputTensor;
  UINT InputDimensionCount;
  UINT IndicesDimensionCount;
} DML_SCATTER_ND_OPERATOR_DESC;

typedef struct DML_DIAGONAL_MATRIX1_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor; /* optional */
  const DML_TENSOR_DESC* OutputTensor;
  DML_TENSOR_DATA_TYPE ValueDataType;
  DML_SCALAR_UNION Value;
  INT DiagonalFillBegin;
  INT DiagonalFillEnd;
} DML_DIAGONAL_MATRIX1_OPERATOR_DESC;

typedef struct DML_CONVOLUTION_INTEGER_OPERATOR_DESC {
  const DML_TENSOR_DESC* InputTensor;
  const DML_TENSOR_DESC* InputZeroPointTensor; /* optional */
  const DML_TENSOR_DESC* FilterTensor;
  const DML_TENSOR_DESC* FilterZeroPointTensor; /* optional */
  const DML_TENSOR_DESC* OutputTensor;
  UINT DimensionCount;
  const UINT* Strides;
  const UINT* Dilations;
  const UINT* StartPadding;
  const UINT* EndPadding;
  UINT GroupCount;
} DML_CONVOLUTION_INTEGER_OPERATOR_DESC;

#ifdef __cplusplus
} /* extern "C" */

/* DirectML.h's DEFINE_ENUM_FLAG_OPERATORS(DML_TENSOR_FLAGS): winnt.h's seven
   operators, the four that return a value constexpr as there. */
constexpr DML_TENSOR_FLAGS operator|(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) {
  return static_cast<DML_TENSOR_FLAGS>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr DML_TENSOR_FLAGS operator&(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) {
  return static_cast<DML_TENSOR_FLAGS>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
}
constexpr DML_TENSOR_FLAGS operator^(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) {
  return static_cast<DML_TENSOR_FLAGS>(static_cast<unsigned>(a) ^ static_cast<unsigned>(b));
}
constexpr DML_TENSOR_FLAGS operator~(DML_TENSOR_FLAGS a) {
  return static_cast<DML_TENSOR_FLAGS>(~static_cast<unsigned>(a));
}
inline DML_TENSOR_FLAGS& operator|=(DML_TENSOR_FLAGS& a, DML_TENSOR_FLAGS b) {
  return a = a | b;
}
inline DML_TENSOR_FLAGS& operator&=(DML_TENSOR_FLAGS& a, DML_TENSOR_FLAGS b) {
  return a = a & b;
}
inline DML_TENSOR_FLAGS& operator^=(DML_TENSOR_FLAGS& a, DML_TENSOR_FLAGS b) {
  return a = a ^ b;
}
#endif

/* vkdml's two helpers are named vkdml* so that DirectML code, which defines
   its own DMLCalcBufferTensorSize (DirectML's helper-function page, its
   samples), compiles unchanged. */

/* Size in bytes of one element of the type, 0 for UNKNOWN or an invalid value. */
static inline UINT vkdmlElementSizeInBytes(DML_TENSOR_DATA_TYPE dataType) {
  switch (dataType) {
    case DML_TENSOR_DATA_TYPE_UINT8:
    case DML_TENSOR_DATA_TYPE_INT8:
      return 1;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
    case DML_TENSOR_DATA_TYPE_UINT16:
    case DML_TENSOR_DATA_TYPE_INT16:
      return 2;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
    case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_INT32:
      return 4;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
    case DML_TENSOR_DATA_TYPE_UINT64:
    case DML_TENSOR_DATA_TYPE_INT64:
      return 8;
    default:
      return 0;
  }
}

/* DMLCalcBufferTensorSize of DirectML's helper-function page: the minimum
   TotalTensorSizeInBytes of a tensor, (1 + sum_i (Sizes[i]-1)*Strides[i]) *
   elementSize (packed: prod(Sizes) * elementSize), rounded up to a multiple
   of 4. Strides may be NULL. */
static inline UINT64 vkdmlCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount, const UINT* sizes,
                                               const UINT* strides) {
  UINT64 elementSizeInBytes = vkdmlElementSizeInBytes(dataType);
  UINT64 minimumImpliedSizeInBytes = 0;
  UINT i;
  if (!strides) {
    minimumImpliedSizeInBytes = 1;
    for (i = 0; i < dimensionCount; ++i) minimumImpliedSizeInBytes *= sizes[i];
    minimumImpliedSizeInBytes *= elementSizeInBytes;
  } else {
    UINT64 indexOfLastElement = 0;
    for (i = 0; i < dimensionCount; ++i) indexOfLastElement += (UINT64)(sizes[i] - 1) * strides[i];
    minimumImpliedSizeInBytes = (indexOfLastElement + 1) * elementSizeInBytes;
  }
  /* Round up to the nearest 4 bytes. */
  return (minimumImpliedSizeInBytes + 3) & ~(UINT64)3;
}

#endif /* VKDML_DIRECTML_H */
