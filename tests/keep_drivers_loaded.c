// Built into the test programs under AddressSanitizer (VKDML_SANITIZE) only.
// The Vulkan loader unloads a driver when the last instance is destroyed;
// what the driver keeps for the life of the process (lavapipe does) then
// appears to LeakSanitizer in an "<unknown module>", which tests/lsan.supp
// cannot name. Loaded once here with RTLD_NODELETE, the driver stays mapped,
// so its allocations keep its library's name and the suppressions apply.
#include <dlfcn.h>

__attribute__((constructor)) static void keepDriversLoaded(void) {
  static const char* const drivers[] = {"libvulkan_lvp.so"};
  for (unsigned i = 0; i < sizeof drivers / sizeof drivers[0]; ++i)
    (void)dlopen(drivers[i], RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);  // absent: nothing to keep
}
