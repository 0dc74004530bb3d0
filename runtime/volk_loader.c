/* volk, Debian's libvulkan-volk-dev: loads the Vulkan loader at run time.
   Built into vkdml with hidden visibility, so its vk* function pointers never
   clash with an application's own Vulkan symbols. */
#include <volk.c>
