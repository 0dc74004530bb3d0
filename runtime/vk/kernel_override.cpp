// Kernel development: $VKDML_KERNEL_DIR/<kernel>.spv replaces the embedded
// kernel of that name (shader experiments without a rebuild: same bindings
// and specialization constants). Built only with the CMake option
// VKDML_KERNEL_OVERRIDE (off by default): otherwise an environment variable
// would choose the code that every program linking vkdml runs on its GPU.
#include <spirv-tools/libspirv.hpp>

#include <cstdio>
#include <cstdlib>

#include "device_impl.hpp"

namespace vkdml {
namespace detail {

namespace {
constexpr size_t kMaxKernelBytes = 16u << 20;  // far above any kernel of shaders/
constexpr uint32_t kSpirvMagic = 0x07230203;

[[noreturn]] void rejectKernel(const std::string& path, const std::string& reason) {
  throw Error(ErrorCode::InvalidArgument, "Device", "VKDML_KERNEL_DIR",
              concat("VKDML_KERNEL_DIR: ", path, ": ", reason));
}
}  // namespace

std::vector<uint32_t> kernelOverride(const std::string& kernel) {
  const char* directory = std::getenv("VKDML_KERNEL_DIR");
  if (!directory || !*directory) return {};
  const std::string path = std::string(directory) + "/" + kernel + ".spv";
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return {};  // this kernel is not replaced
  struct Close {
    std::FILE* file;
    ~Close() { std::fclose(file); }
  } closeLater{file};
  std::vector<uint8_t> bytes;
  uint8_t chunk[65536];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, file)) > 0;) {
    if (bytes.size() + n > kMaxKernelBytes) rejectKernel(path, concat("larger than ", kMaxKernelBytes, " bytes"));
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  if (std::ferror(file)) rejectKernel(path, "could not be read");
  if (bytes.empty() || bytes.size() % 4)
    rejectKernel(path, concat("holds ", bytes.size(), " bytes: SPIR-V is a non-empty sequence of 4-byte words"));
  std::vector<uint32_t> code(bytes.size() / 4);
  std::memcpy(code.data(), bytes.data(), bytes.size());
  if (code[0] != kSpirvMagic)
    rejectKernel(path, concat("does not start with the SPIR-V magic number 0x07230203 (0x", std::hex, code[0], ")"));
  // The environment the embedded kernels are built and validated for (shaders/CMakeLists.txt).
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string firstError;
  tools.SetMessageConsumer(
      [&](spv_message_level_t level, const char*, const spv_position_t& position, const char* message) {
        if (level <= SPV_MSG_ERROR && firstError.empty()) firstError = concat("word ", position.index, ": ", message);
      });
  if (!tools.Validate(code)) rejectKernel(path, "is not valid SPIR-V: " + firstError);
  std::fprintf(stderr, "vkdml: kernel %s from %s (%zu bytes)\n", kernel.c_str(), path.c_str(), bytes.size());
  return code;
}

}  // namespace detail
}  // namespace vkdml
