// Arithmetic on numbers a caller chose. A size, an offset or a count built
// from a descriptor's or a binding's fields goes through Checked, which
// remembers an overflow instead of wrapping; the code that uses the result
// asks for it with get(), which rejects the descriptor, naming the field,
// when any step overflowed 64 bits.
#pragma once

#include <cstdint>
#include <string>

namespace vkdml {
namespace detail {

// a / b rounded up, without the wrap of a 32-bit a + b - 1 (a count of
// tiles of 2^32 - 1 rows is not 0). The 32-bit form's quotient is at most a.
constexpr uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return a / b + (a % b != 0);
}
constexpr uint32_t ceilDiv32(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(ceilDiv(a, b));
}

[[noreturn]] void throwInvalid(const char* op, const std::string& field, const std::string& rule);

class Checked {
 public:
  constexpr Checked(uint64_t value = 0) : value_(value) {}  // NOLINT: implicit, so expressions read naturally

  friend Checked operator+(Checked a, Checked b) {
    Checked r;
    r.overflow_ = a.overflow_ || b.overflow_ || __builtin_add_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  friend Checked operator*(Checked a, Checked b) {
    Checked r;
    r.overflow_ = a.overflow_ || b.overflow_ || __builtin_mul_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  Checked& operator+=(Checked b) { return *this = *this + b; }
  Checked& operator*=(Checked b) { return *this = *this * b; }
  // Rounded up to a multiple of `unit` (a power of two).
  Checked roundUp(uint64_t unit) const {
    Checked r = *this + (unit - 1);
    r.value_ &= ~(unit - 1);
    return r;
  }

  bool overflowed() const { return overflow_; }
  // The value when it fits in 64 bits, else `fallback` (for choices that
  // only need to know the value is large).
  uint64_t valueOr(uint64_t fallback) const { return overflow_ ? fallback : value_; }
  // The value; InvalidArgument "<op>: <field>: <what> overflows 64 bits" if it does not fit.
  uint64_t get(const char* op, const std::string& field, const std::string& what) const {
    if (overflow_) throwInvalid(op, field, what + " overflows 64 bits");
    return value_;
  }

 private:
  uint64_t value_ = 0;
  bool overflow_ = false;
};

}  // namespace detail
}  // namespace vkdml
