// Operators whose kernels are not written yet: creating one says so.
#include "internal.hpp"

namespace vkdml {
namespace detail {

std::shared_ptr<OperatorPlan> createScatterNd(const DML_SCATTER_ND_OPERATOR_DESC&) {
  throwUnsupported("DML_SCATTER_ND", "Type", "not implemented yet");
}

}  // namespace detail
}  // namespace vkdml
