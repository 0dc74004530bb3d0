// CompileOptions' checks, made by compileOperator before any planner runs:
// every enum holds one of its values, whichever operator is compiled.
#include "internal.hpp"

namespace vkdml {
namespace detail {

namespace {
template <typename Enum>
void requireEnum(const char* op, const char* field, const char* type, Enum value, Enum last) {
  if (static_cast<uint32_t>(value) > static_cast<uint32_t>(last))
    throwInvalid(op, field, concat("is not a ", type, " (", static_cast<int>(value), ")"));
}
}  // namespace

void checkCompileOptions(const char* op, const CompileOptions& options) {
  requireEnum(op, "CompileOptions.convolutionPath", "ConvolutionPath", options.convolutionPath,
              ConvolutionPath::CooperativeMatrixKHR);
  requireEnum(op, "CompileOptions.convolutionPacking", "ConvolutionPacking", options.convolutionPacking,
              ConvolutionPacking::ChannelsLast);
  requireEnum(op, "CompileOptions.copyPath", "CopyPath", options.copyPath, CopyPath::Kernel);
  requireEnum(op, "CompileOptions.dotKernel", "DotKernel", options.dotKernel, DotKernel::Tiled);
}

}  // namespace detail
}  // namespace vkdml
