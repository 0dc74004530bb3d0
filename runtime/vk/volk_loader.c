/* volk, Debian's libvulkan-volk-dev: loads the Vulkan loader at run time.
   The one copy, built once as the object library vkdml_volk (CMakeLists.txt)
   and linked into vkdml and into each program that calls Vulkan itself (the
   tests, the benchmark, vkdml-dispatch). In the shared vkdml it has hidden
   visibility, so its vk* function pointers never clash with an application's
   own Vulkan symbols; such a program therefore loads its own. */
#include <volk.c>
