#include "allocation_failures.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <new>

#include <vkdml/vkdml.hpp>

namespace {
thread_local long countdown = -1;  // -1: disarmed
thread_local bool failed = false;

// Whether the code at `address` belongs to libvkdml (or to this program,
// where vkdml is linked statically).
bool inVkdml(void* address) {
  static void* const base = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<void*>(&vkdml::validate), &info) ? info.dli_fbase : nullptr;
  }();
  Dl_info info{};
  return dladdr(address, &info) && info.dli_fbase == base;
}

void* allocate(std::size_t bytes, void* caller) {
  if (countdown >= 0 && inVkdml(caller) && countdown-- == 0) {
    countdown = -1;
    failed = true;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(bytes ? bytes : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

namespace test {
void failAllocation(long n) {
  failed = false;
  countdown = n;
}
bool allocationFailed() {
  countdown = -1;
  return failed;
}
}  // namespace test

// noinline: __builtin_return_address(0) must be the caller of operator new.
__attribute__((noinline)) void* operator new(std::size_t bytes) {
  return allocate(bytes, __builtin_return_address(0));
}
__attribute__((noinline)) void* operator new[](std::size_t bytes) {
  return allocate(bytes, __builtin_return_address(0));
}
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  return std::malloc(bytes ? bytes : 1);
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  return std::malloc(bytes ? bytes : 1);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
