/* The benchmark records its own command buffers and timestamp queries. */
#include <volk.c>
