// The operators (operators.inc): each row's create function, defined in
// its operator's file, and createPlan, which dispatches a descriptor to it.
#pragma once

#include <memory>

#include "core/plan.hpp"

namespace vkdml {
namespace detail {

#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create) \
  std::shared_ptr<OperatorPlan> create(const Desc& desc);
#include "operators.inc"
#undef VKDML_OPERATOR

// The plan of `desc` from its row's create function: InvalidArgument where
// it breaks a rule, Unsupported for a type outside the table.
std::shared_ptr<OperatorPlan> createPlan(const DML_OPERATOR_DESC& desc);

// The Device's defaults from $VKDML_CONVOLUTION_PATH and
// $VKDML_CONVOLUTION_PACKING (defined with the convolution's planner):
// InvalidArgument, naming the variable, for a value they cannot take.
PlanDefaults planDefaultsFromEnvironment();

}  // namespace detail
}  // namespace vkdml
