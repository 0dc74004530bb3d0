/* The tests drive Vulkan directly (adopted devices, caller-owned command
   buffers) through their own copy of volk. */
#include <volk.c>
