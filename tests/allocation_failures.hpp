// Host allocation failures on demand. The test program replaces operator
// new; once armed on a thread, the n-th allocation that libvkdml itself
// makes there (0: the next) throws std::bad_alloc. Allocations of other
// libraries (the driver, the validation layer) are never failed.
#pragma once

namespace test {
void failAllocation(long n);
// Disarms; whether an allocation failed since arming.
bool allocationFailed();
}  // namespace test
