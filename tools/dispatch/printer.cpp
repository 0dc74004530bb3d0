#include "printer.hpp"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "data_types.hpp"

namespace dispatch {

namespace {

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// One element as `os << value` writes it for DxDispatch's element type.
void writeValue(std::ostream& os, DML_TENSOR_DATA_TYPE type, const uint8_t* p) {
  switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT16:
      os << halfToFloat(load<uint16_t>(p));
      break;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
      os << load<float>(p);
      break;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
      os << load<double>(p);
      break;
    case DML_TENSOR_DATA_TYPE_UINT8:
      os << load<uint8_t>(p);  // a character, as in DxDispatch
      break;
    case DML_TENSOR_DATA_TYPE_INT8:
      os << load<int8_t>(p);  // a character, as in DxDispatch
      break;
    case DML_TENSOR_DATA_TYPE_UINT16:
      os << load<uint16_t>(p);
      break;
    case DML_TENSOR_DATA_TYPE_INT16:
      os << load<int16_t>(p);
      break;
    case DML_TENSOR_DATA_TYPE_UINT32:
      os << load<uint32_t>(p);
      break;
    case DML_TENSOR_DATA_TYPE_INT32:
      os << load<int32_t>(p);
      break;
    case DML_TENSOR_DATA_TYPE_UINT64:
      os << load<uint64_t>(p);
      break;
    case DML_TENSOR_DATA_TYPE_INT64:
      os << load<int64_t>(p);
      break;
    default:
      throw std::invalid_argument("Unexpected DML_TENSOR_DATA_TYPE");
  }
}

}  // namespace

std::string formatResource(const std::string& name, DML_TENSOR_DATA_TYPE type, const std::vector<uint8_t>& bytes,
                           uint64_t count, bool verbose) {
  const uint32_t size = vkdmlElementSizeInBytes(type);
  if (size == 0) throw std::invalid_argument("Unexpected DML_TENSOR_DATA_TYPE");
  if (count > UINT32_MAX) throw std::invalid_argument("Buffer size is too large");
  if (count * size > bytes.size()) throw std::invalid_argument("the resource holds fewer bytes than its values");
  std::ostringstream os;
  os << "Resource '" << name << "':" << (verbose ? "\n" : " ");
  // fmt's "[{:{}}] " and " (0x{:{}X})": right-aligned, space-padded.
  const int indexWidth = count ? static_cast<int>(std::floor(std::log10(static_cast<double>(count)))) + 1 : 1;
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* p = bytes.data() + i * size;
    if (verbose) {
      uint64_t bits = 0;
      std::memcpy(&bits, p, size);
      os << "[" << std::setw(indexWidth) << i << "] ";
      writeValue(os, type, p);
      os << " (0x" << std::uppercase << std::hex << std::setw(static_cast<int>(2 * size)) << bits << std::dec
         << std::nouppercase << ")\n";
    } else {
      writeValue(os, type, p);
      if (i + 1 < count) os << ", ";
    }
  }
  return os.str();
}

}  // namespace dispatch
