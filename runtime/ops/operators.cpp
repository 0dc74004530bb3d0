// The operator table's dispatch: createOperator and validate find a
// descriptor's row in operators.inc and call its create function.
#include "operators.hpp"

#include <cstring>

#include "core/checked.hpp"
#include "core/copy.hpp"
#include "core/guard.hpp"

namespace vkdml {
namespace detail {

namespace {
// A row of the operator table (operators.inc), its create function taking
// the descriptor as DML_OPERATOR_DESC::Desc holds it.
struct OperatorRow {
  uint32_t type;
  const char* name;
  uint32_t inputs, outputs;
  std::shared_ptr<OperatorPlan> (*create)(const void* desc);
};
template <typename Desc, std::shared_ptr<OperatorPlan> (*Create)(const Desc&)>
std::shared_ptr<OperatorPlan> createFrom(const void* desc) {
  return Create(*static_cast<const Desc*>(desc));
}
constexpr OperatorRow kOperators[] = {
#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create, dataTypes) \
  {type, name, inputs, outputs, createFrom<Desc, create>},
#include "operators.inc"
#undef VKDML_OPERATOR
};

// "JOIN, SLICE1, ...": the table's operators, for the error on any other type.
std::string implementedNames() {
  std::string names;
  for (const OperatorRow& row : kOperators)
    names += concat(names.empty() ? "" : ", ", std::string(row.name).substr(std::strlen("DML_")));
  return names;
}
}  // namespace

FeatureSupport featureSupport(const DeviceInfo& device) {
  struct Row {
    DML_OPERATOR_TYPE type;
    const char* name;
    const OperatorDataTypes& dataTypes;
  };
  static const Row rows[] = {
#define VKDML_OPERATOR(type, name, Desc, inputs, outputs, create, dataTypes) {type, name, dataTypes},
#include "operators.inc"
#undef VKDML_OPERATOR
  };
  FeatureSupport support;
  for (const Row& row : rows) {
    OperatorSupport op{row.type, row.name, {}, {}, {}};
    for (size_t i = 0; i < row.dataTypes.count; ++i) {
      const TensorDataTypes& tensor = row.dataTypes.tensors[i];
      TensorSupport t{tensor.tensor, {}};
      for (uint32_t type = 0; type < 32; ++type)
        if (tensor.types & (1u << type)) t.dataTypes.push_back(static_cast<DML_TENSOR_DATA_TYPE>(type));
      (tensor.output ? op.outputs : op.inputs).push_back(std::move(t));
    }
    if (row.type == DML_OPERATOR_CONVOLUTION_INTEGER) op.convolutionPaths = convolutionPaths(device);
    support.operators.push_back(std::move(op));
  }
  return support;
}

namespace {
// Inputs flagged DML_TENSOR_FLAG_OWNED_BY_DML are copied into the persistent
// resource, each 256-byte aligned (vk/compile.cpp lays it out): its size
// must fit 64 bits, a rule of the descriptor.
void checkPersistentCopies(const OperatorPlan& plan) {
  Checked persistent = 0;
  for (const Slot& slot : plan.inputs)
    if (slot.tensor && slot.tensor->owned) {
      persistent = persistent.roundUp(DML_PERSISTENT_BUFFER_ALIGNMENT) + Checked(slot.tensor->totalBytes);
      persistent.roundUp(4).get(plan.name, slot.name + ".TotalTensorSizeInBytes",
                                "the size of the persistent copies of the inputs flagged DML_TENSOR_FLAG_OWNED_BY_DML");
    }
}
}  // namespace

PlanDefaults planDefaultsFromEnvironment() {
  PlanDefaults defaults;
  convolutionDefaultsFromEnvironment(defaults);
  defaults.copyPath = copyPathFromEnvironment();
  defaults.indexBits = indexBitsFromEnvironment();
  return defaults;
}

std::shared_ptr<OperatorPlan> createPlan(const DML_OPERATOR_DESC& desc) {
  if (!desc.Desc)
    throw Error(ErrorCode::InvalidArgument, "DML_OPERATOR_DESC", "Desc", "DML_OPERATOR_DESC: Desc: is null");
  const uint32_t type = rawBits(desc.Type);
  for (const OperatorRow& row : kOperators) {
    if (row.type != type) continue;
    std::shared_ptr<OperatorPlan> plan = row.create(desc.Desc);
    // The row and the operator's file agree on what the operator is.
    if (plan->type != desc.Type || std::strcmp(plan->name, row.name) != 0 || plan->outputs.size() != row.outputs ||
        (row.inputs && plan->inputs.size() != row.inputs))
      throw Error(ErrorCode::Internal, row.name, "operator table",
                  concat(row.name, ": operator table: its plan (", plan->name, ", ", plan->inputs.size(), " inputs, ",
                         plan->outputs.size(), " outputs) does not match its row in operators.inc"));
    checkPersistentCopies(*plan);
    return plan;
  }
  throw Error(ErrorCode::Unsupported, "DML_OPERATOR_DESC", "Type",
              concat("DML_OPERATOR_DESC: Type: operator type ", type, " is not supported (vkdml implements ",
                     implementedNames(), ")"));
}

}  // namespace detail

std::optional<Error> validate(const DML_OPERATOR_DESC& desc) try {
  try {
    detail::createPlan(desc);
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
} catch (...) {
  detail::rethrowAsError("vkdml", "validate");
}

DML_OPERATOR_TYPE Operator::type() const {
  return plan_ ? plan_->type : DML_OPERATOR_INVALID;
}
const char* Operator::name() const {
  return plan_ ? plan_->name : "";
}
uint32_t Operator::inputCount() const {
  return plan_ ? static_cast<uint32_t>(plan_->inputs.size()) : 0;
}
uint32_t Operator::outputCount() const {
  return plan_ ? static_cast<uint32_t>(plan_->outputs.size()) : 0;
}

const char* toString(ConvolutionPath path) {
  switch (path) {
    case ConvolutionPath::Auto:
      return "auto";
    case ConvolutionPath::Portable:
      return "portable";
    case ConvolutionPath::DotProduct:
      return "dot";
    case ConvolutionPath::CooperativeMatrix:
      return "coopmat";
    case ConvolutionPath::CooperativeMatrixEmulated:
      return "coopmat-emulated";
    case ConvolutionPath::CooperativeMatrixKHR:
      return "coopmat-khr";
  }
  return "?";
}

}  // namespace vkdml
