// Errors of the descriptor rules: every one is a vkdml::Error whose message
// reads "<op>: <field>: <rule> (<values>)".
#pragma once

#include <vkdml/vkdml.hpp>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

namespace vkdml {
namespace detail {

// Builds the message of an Error: "<op>: <field>: <rule> (<values>)".
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}

template <typename T>
std::string list(const T* values, uint32_t count) {
  std::ostringstream s;
  s << '{';
  for (uint32_t i = 0; i < count; ++i) s << (i ? "," : "") << +values[i];
  s << '}';
  return s.str();
}

[[noreturn]] void throwInvalid(const char* op, const std::string& field, const std::string& rule);
[[noreturn]] void throwUnsupported(const char* op, const std::string& field, const std::string& rule);
// The name of a data type, "UNKNOWN" for any other value: it takes the raw
// bits, since a descriptor's field may hold any value.
const char* dataTypeName(uint32_t type);

// An enum field of a caller's descriptor as its bits: a value outside the
// enumerators would be undefined behaviour to load as the enum type.
template <typename Enum>
uint32_t rawBits(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(uint32_t), "DirectML enums are 32-bit");
  uint32_t bits;
  std::memcpy(&bits, &field, sizeof bits);
  return bits;
}

}  // namespace detail
}  // namespace vkdml
