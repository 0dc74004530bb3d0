// The operators (operators.inc): each row's create function, defined in
// its operator's file, and createPlan, which dispatches a descriptor to it.
#pragma once

#include <iterator>
#include <memory>

#include "core/plan.hpp"

namespace vkdml {
namespace detail {

// The data types one tensor of an operator accepts (a dataTypeMask), named
// as its descriptor's field; a tensor that must match another's type lists
// the same set.
struct TensorDataTypes {
  const char* tensor;
  bool output;
  uint32_t types;
};
struct OperatorDataTypes {
  const TensorDataTypes* tensors;
  size_t count;
};

#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create, dataTypes) \
  std::shared_ptr<OperatorPlan> create(const Desc& desc);                    \
  extern const OperatorDataTypes dataTypes;
#include "operators.inc"
#undef VKDML_OPERATOR

// The plan of `desc` from its row's create function: InvalidArgument where
// it breaks a rule, Unsupported for a type outside the table.
std::shared_ptr<OperatorPlan> createPlan(const DML_OPERATOR_DESC& desc);

// The Device's defaults from $VKDML_CONVOLUTION_PATH,
// $VKDML_CONVOLUTION_PACKING, $VKDML_DOT_KERNEL, $VKDML_DOT_TILE,
// $VKDML_COOPMAT_ROWS, $VKDML_SPLIT_ZEROS (convolutionDefaultsFromEnvironment, defined with the
// convolution's planner), $VKDML_COPY_PATH and $VKDML_INDEX_BITS (core/copy.hpp):
// InvalidArgument, naming the variable, for a value they cannot take.
PlanDefaults planDefaultsFromEnvironment();
void convolutionDefaultsFromEnvironment(PlanDefaults& defaults);

// Device::featureSupport: the table's operators and their data types, and
// the convolution paths `device` has.
FeatureSupport featureSupport(const DeviceInfo& device);
// The ConvolutionPath values (Auto aside) that `device` can run
// (convolution_integer_paths.cpp, from the rules compileOperator applies).
std::vector<ConvolutionPath> convolutionPaths(const DeviceInfo& device);

}  // namespace detail
}  // namespace vkdml
