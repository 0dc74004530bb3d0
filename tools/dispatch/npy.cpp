#include "npy.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "data_types.hpp"

namespace dispatch {

namespace {

const uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

// The value of `key` in the header dictionary ("'descr': '<f4'" -> "<f4";
// the shape keeps its parentheses).
std::string dictValue(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) k = header.find("\"" + key + "\"");
  if (k == std::string::npos) throw std::runtime_error("the .npy header has no '" + key + "'");
  size_t colon = header.find(':', k + key.size() + 2);
  if (colon == std::string::npos) throw std::runtime_error("the .npy header is malformed");
  size_t start = header.find_first_not_of(" ", colon + 1);
  if (start == std::string::npos) throw std::runtime_error("the .npy header is malformed");
  size_t end;
  if (header[start] == '(') {
    end = header.find(')', start);
    if (end == std::string::npos) throw std::runtime_error("the .npy header's shape is malformed");
    return header.substr(start, end - start + 1);
  }
  if (header[start] == '\'' || header[start] == '"') {
    end = header.find(header[start], start + 1);
    if (end == std::string::npos) throw std::runtime_error("the .npy header is malformed");
    return header.substr(start + 1, end - start - 1);
  }
  end = header.find_first_of(",}", start);
  return header.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// DxDispatch's MapNumPyArrayDataTypeToDml: a type letter, then an optional size.
DML_TENSOR_DATA_TYPE typeOf(const std::string& descr, bool& bigEndian) {
  bigEndian = false;
  char letter = 0;
  uint32_t size = 0;
  for (char c : descr) {
    if (c == '>')
      bigEndian = true;
    else if (c == '<' || c == '=' || c == '|')
      bigEndian = false;
    else if (c >= '0' && c <= '9')
      size = std::min<uint32_t>(size * 10 + uint32_t(c - '0'), 1000);
    else if (letter == 0)
      letter = c;
    else
      throw std::runtime_error("unsupported dtype '" + descr + "'");
  }
  struct Code {
    char letter;
    uint32_t size;
    DML_TENSOR_DATA_TYPE type;
  };
  static const Code kCodes[] = {
      {'?', 0, DML_TENSOR_DATA_TYPE_UINT8},   {'?', 1, DML_TENSOR_DATA_TYPE_UINT8},
      {'b', 0, DML_TENSOR_DATA_TYPE_INT8},    {'B', 0, DML_TENSOR_DATA_TYPE_UINT8},
      {'h', 0, DML_TENSOR_DATA_TYPE_INT16},   {'H', 0, DML_TENSOR_DATA_TYPE_UINT16},
      {'i', 0, DML_TENSOR_DATA_TYPE_INT32},   {'u', 0, DML_TENSOR_DATA_TYPE_UINT32},
      {'f', 0, DML_TENSOR_DATA_TYPE_FLOAT32}, {'d', 0, DML_TENSOR_DATA_TYPE_FLOAT64},
      {'i', 1, DML_TENSOR_DATA_TYPE_INT8},    {'i', 2, DML_TENSOR_DATA_TYPE_INT16},
      {'i', 4, DML_TENSOR_DATA_TYPE_INT32},   {'i', 8, DML_TENSOR_DATA_TYPE_INT64},
      {'b', 1, DML_TENSOR_DATA_TYPE_INT8},    {'h', 2, DML_TENSOR_DATA_TYPE_INT16},
      {'u', 1, DML_TENSOR_DATA_TYPE_UINT8},   {'u', 2, DML_TENSOR_DATA_TYPE_UINT16},
      {'u', 4, DML_TENSOR_DATA_TYPE_UINT32},  {'u', 8, DML_TENSOR_DATA_TYPE_UINT64},
      {'B', 1, DML_TENSOR_DATA_TYPE_UINT8},   {'H', 2, DML_TENSOR_DATA_TYPE_UINT16},
      {'f', 2, DML_TENSOR_DATA_TYPE_FLOAT16}, {'f', 4, DML_TENSOR_DATA_TYPE_FLOAT32},
      {'f', 8, DML_TENSOR_DATA_TYPE_FLOAT64}, {'d', 8, DML_TENSOR_DATA_TYPE_FLOAT64},
  };
  for (const auto& code : kCodes)
    if (code.letter == letter && code.size == size) return code.type;
  throw std::runtime_error("unsupported dtype '" + descr + "'");
}

// A Python tuple of non-negative integers, as numpy writes a shape: "()",
// "(3,)", "(2, 3)", "(2,3,)" (and "(3)"), spaces between the parts. Anything
// else ("(2.5,)", "(-3,)", "(2 3)", "(,)") is refused.
std::vector<uint32_t> parseShape(const std::string& shape) {
  auto malformed = [&](const std::string& why) {
    return std::runtime_error("the .npy header's shape " + shape + " is not a tuple of integers: " + why);
  };
  auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
  std::vector<uint32_t> dims;
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') throw malformed("no parentheses");
  size_t i = 1;
  const size_t end = shape.size() - 1;
  auto skipSpaces = [&] {
    while (i < end && isSpace(shape[i])) ++i;
  };
  skipSpaces();
  while (i < end) {
    if (!isDigit(shape[i]))
      throw malformed("'" + std::string(1, shape[i]) + "' where a dimension (a non-negative integer) belongs");
    uint64_t dim = 0;
    for (; i < end && isDigit(shape[i]); ++i) {
      dim = dim * 10 + uint64_t(shape[i] - '0');
      if (dim > UINT32_MAX) throw std::runtime_error("a dimension of the shape " + shape + " exceeds 2^32 - 1");
    }
    dims.push_back(static_cast<uint32_t>(dim));
    skipSpaces();
    if (i == end) break;
    if (shape[i] != ',') throw malformed("'" + std::string(1, shape[i]) + "' after a dimension, not ',' or ')'");
    ++i;
    skipSpaces();
  }
  return dims;
}

}  // namespace

NpyArray readNpy(const std::vector<uint8_t>& file) {
  if (file.size() < 10 || !std::equal(kMagic, kMagic + 6, file.begin()))
    throw std::runtime_error("not a NumPy array file (no \\x93NUMPY signature)");
  const uint8_t major = file[6];
  if (major < 1 || major > 3)
    throw std::runtime_error("NumPy format version " + std::to_string(major) + " is not supported");
  size_t headerStart = major == 1 ? 10 : 12;
  if (file.size() < headerStart) throw std::runtime_error("the .npy header is truncated");
  uint64_t headerLength =
      major == 1 ? uint64_t(file[8]) | uint64_t(file[9]) << 8
                 : uint64_t(file[8]) | uint64_t(file[9]) << 8 | uint64_t(file[10]) << 16 | uint64_t(file[11]) << 24;
  if (headerLength > file.size() - headerStart) throw std::runtime_error("the .npy header is truncated");
  const std::string header(file.begin() + static_cast<std::ptrdiff_t>(headerStart),
                           file.begin() + static_cast<std::ptrdiff_t>(headerStart + headerLength));
  NpyArray array;
  bool bigEndian = false;
  array.dataType = typeOf(dictValue(header, "descr"), bigEndian);
  if (dictValue(header, "fortran_order") != "False") throw std::runtime_error("Fortran order is not supported");
  const std::string shape = dictValue(header, "shape");
  uint64_t count = 1;
  array.shape = parseShape(shape);
  for (uint32_t dim : array.shape) {
    count *= dim;
    if (count > UINT32_MAX) throw std::runtime_error("the shape " + shape + " holds more than 2^32 - 1 elements");
  }
  const uint32_t size = vkdmlElementSizeInBytes(array.dataType);
  const uint64_t bytes = count * size, dataStart = headerStart + headerLength;
  if (file.size() - dataStart < bytes)
    throw std::runtime_error("the data holds " + std::to_string(file.size() - dataStart) + " bytes; shape " + shape +
                             " needs " + std::to_string(bytes));
  array.data.assign(file.begin() + static_cast<std::ptrdiff_t>(dataStart),
                    file.begin() + static_cast<std::ptrdiff_t>(dataStart + bytes));
  if (bigEndian)
    for (size_t e = 0; e + size <= array.data.size(); e += size)
      std::reverse(array.data.begin() + static_cast<std::ptrdiff_t>(e),
                   array.data.begin() + static_cast<std::ptrdiff_t>(e + size));
  return array;
}

std::vector<uint8_t> writeNpy(DML_TENSOR_DATA_TYPE type, const std::vector<uint64_t>& shape,
                              const std::vector<uint8_t>& data) {
  struct Descr {
    DML_TENSOR_DATA_TYPE type;
    const char* code;
  };
  static const Descr kDescrs[] = {
      {DML_TENSOR_DATA_TYPE_INT8, "i1"},    {DML_TENSOR_DATA_TYPE_UINT8, "u1"},   {DML_TENSOR_DATA_TYPE_INT16, "i2"},
      {DML_TENSOR_DATA_TYPE_INT32, "i4"},   {DML_TENSOR_DATA_TYPE_INT64, "i8"},   {DML_TENSOR_DATA_TYPE_UINT16, "u2"},
      {DML_TENSOR_DATA_TYPE_UINT32, "u4"},  {DML_TENSOR_DATA_TYPE_UINT64, "u8"},  {DML_TENSOR_DATA_TYPE_FLOAT16, "f2"},
      {DML_TENSOR_DATA_TYPE_FLOAT32, "f4"}, {DML_TENSOR_DATA_TYPE_FLOAT64, "f8"},
  };
  const char* code = nullptr;
  for (const auto& d : kDescrs)
    if (d.type == type) code = d.code;
  const uint32_t size = vkdmlElementSizeInBytes(type);
  if (!code || !size) throw std::invalid_argument("the resource has no data type");
  // The shape must not claim more than the data: readers would run past it.
  std::string dims;
  uint64_t count = 1;
  for (uint64_t d : shape) {
    dims += std::to_string(d) + ",";
    count = d && count > UINT64_MAX / d ? UINT64_MAX : count * d;
  }
  if (count > data.size() / size) {
    dims.pop_back();
    throw std::invalid_argument("the shape (" + dims + ") holds " + std::to_string(count) + " " +
                                vkdml::toString(type) + " elements, more than the resource's " +
                                std::to_string(data.size()) + " bytes hold (" + std::to_string(data.size() / size) +
                                ")");
  }
  const std::string dict = "{'descr':'<" + std::string(code) + "', 'fortran_order':False, 'shape':(" + dims + "), }";
  // Version 1 stores the header's length in 2 bytes; version 2 (as numpy
  // chooses) in 4, for longer headers. The whole header is padded to 64 bytes.
  auto padded = [&](size_t prefix) { return (prefix + dict.size() + 1 + 63) & ~size_t(63); };
  const size_t prefix = padded(10) - 10 > 65535 ? 12 : 10;  // magic, version, length
  const size_t total = padded(prefix);
  const uint64_t headerLength = total - prefix;
  if (headerLength > UINT32_MAX) throw std::invalid_argument("the shape's header is longer than 4 GiB");
  std::vector<uint8_t> out(kMagic, kMagic + 6);
  out.reserve(total + count * size);
  out.push_back(prefix == 10 ? 1 : 2);
  out.push_back(0);
  for (size_t b = 0; b < prefix - 8; ++b) out.push_back(static_cast<uint8_t>(headerLength >> (8 * b)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.resize(total, ' ');
  out.back() = '\n';
  out.insert(out.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(count * size));
  return out;
}

}  // namespace dispatch
