// Public entry points throw vkdml::Error and nothing else. Each wraps its body
// in a function-try-block whose handler is rethrowAsError:
//
//   void Buffer::upload(...) try {
//     ...
//   } catch (...) {
//     detail::rethrowAsError("Buffer", "upload");
//   }
#pragma once

#include <new>
#include <stdexcept>

#include "internal.hpp"

namespace vkdml {
namespace detail {

// Call from a catch block only. Rethrows a vkdml::Error unchanged; turns
// std::bad_alloc and std::length_error (a container asked for more than it
// can hold) into OutOfMemory and any other std::exception into Internal.
// Anything else passes unchanged: vkdml throws nothing else, so it can only
// come from a caller's own callback.
[[noreturn]] inline void rethrowAsError(const char* op, const char* field) {
  try {
    throw;
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc& e) {
    throw Error(ErrorCode::OutOfMemory, op, field, concat(op, "::", field, ": out of host memory (", e.what(), ")"));
  } catch (const std::length_error& e) {
    throw Error(ErrorCode::OutOfMemory, op, field, concat(op, "::", field, ": out of host memory (", e.what(), ")"));
  } catch (const std::exception& e) {
    throw Error(ErrorCode::Internal, op, field, concat(op, "::", field, ": unexpected exception: ", e.what()));
  }
}

}  // namespace detail
}  // namespace vkdml
