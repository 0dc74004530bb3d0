// A dispatchable's descriptor as vkdml takes it: DML_*_OPERATOR_DESC structs
// with the storage they point to. DML_OPERATOR_SLICE and
// DML_OPERATOR_DIAGONAL_MATRIX are lowered to SLICE1 and DIAGONAL_MATRIX1.
// Array lengths are checked against their counts here (DxDispatch leaves
// that to DirectML), so vkdml never reads past an array.
#pragma once

#include <vkdml/DirectML.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "model.hpp"

namespace dispatch {

// A bind point of an operator (DxDispatch's GetBindPoints): its name is the
// descriptor field's. Inputs in DirectML's order, then the output.
struct BindPointInfo {
  const char* name;
  uint32_t resourceCount;
  bool required;
  bool output;
};
std::vector<BindPointInfo> bindPoints(const OperatorDesc& desc);

// "DML_OPERATOR_JOIN"
const char* operatorName(const OperatorDesc& desc);

struct BuiltDescriptor {
  DML_OPERATOR_DESC desc{};
  // Storage the descriptor points to.
  std::variant<DML_SLICE1_OPERATOR_DESC, DML_JOIN_OPERATOR_DESC, DML_SCATTER_ND_OPERATOR_DESC,
               DML_DIAGONAL_MATRIX1_OPERATOR_DESC, DML_CONVOLUTION_INTEGER_OPERATOR_DESC>
      op;
  std::vector<DML_BUFFER_TENSOR_DESC> buffers;  // reserved up front: tensors point into it
  std::vector<DML_TENSOR_DESC> tensors;
  std::deque<std::vector<uint32_t>> arrays;
  std::deque<std::vector<int32_t>> signedArrays;
};

// Throws ModelError (at the field's location) where the descriptor cannot
// be expressed: an array whose length is not its count, a SLICE that
// SLICE1 cannot express. vkdml checks every other rule in createOperator.
std::unique_ptr<BuiltDescriptor> buildDescriptor(const Dispatchable& dispatchable);

}  // namespace dispatch
