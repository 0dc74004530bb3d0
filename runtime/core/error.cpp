#include "error.hpp"

namespace vkdml {

Error::Error(ErrorCode code, std::string op, std::string field, const std::string& message)
    : std::runtime_error(message), code_(code), op_(std::move(op)), field_(std::move(field)) {}

namespace detail {

void throwInvalid(const char* op, const std::string& field, const std::string& rule) {
  throw Error(ErrorCode::InvalidArgument, op, field, concat(op, ": ", field, ": ", rule));
}

void throwUnsupported(const char* op, const std::string& field, const std::string& rule) {
  throw Error(ErrorCode::Unsupported, op, field, concat(op, ": ", field, ": ", rule));
}

const char* dataTypeName(uint32_t type) {
  return type <= DML_TENSOR_DATA_TYPE_INT64 ? toString(static_cast<DML_TENSOR_DATA_TYPE>(type)) : "UNKNOWN";
}

}  // namespace detail

const char* toString(DML_TENSOR_DATA_TYPE type) {
  switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32:
      return "FLOAT32";
    case DML_TENSOR_DATA_TYPE_FLOAT16:
      return "FLOAT16";
    case DML_TENSOR_DATA_TYPE_UINT32:
      return "UINT32";
    case DML_TENSOR_DATA_TYPE_UINT16:
      return "UINT16";
    case DML_TENSOR_DATA_TYPE_UINT8:
      return "UINT8";
    case DML_TENSOR_DATA_TYPE_INT32:
      return "INT32";
    case DML_TENSOR_DATA_TYPE_INT16:
      return "INT16";
    case DML_TENSOR_DATA_TYPE_INT8:
      return "INT8";
    case DML_TENSOR_DATA_TYPE_FLOAT64:
      return "FLOAT64";
    case DML_TENSOR_DATA_TYPE_UINT64:
      return "UINT64";
    case DML_TENSOR_DATA_TYPE_INT64:
      return "INT64";
    default:
      return "UNKNOWN";
  }
}

}  // namespace vkdml
