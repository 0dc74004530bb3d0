/* vkdml-dispatch records its own timestamp queries and barriers. */
#include <volk.c>
