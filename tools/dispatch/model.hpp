// A DxDispatch model as plain data: resources (buffers and how to fill
// them), dispatchables (operator descriptors as written) and commands.
// model_parser.cpp fills it from JSON; descriptors.cpp turns a dispatchable
// into a DML_OPERATOR_DESC; executor.cpp runs the commands.
#pragma once

#include <vkdml/DirectML.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "json_document.hpp"

namespace dispatch {

// How a resource's initial bytes are made (materialized by
// resource_init.cpp, so that parsing never allocates a resource's size).
struct ConstantInit {
  uint64_t bits = 0;  // one element
  uint32_t count = 0;
};
struct SequenceInit {
  uint64_t start = 0, delta = 0;  // element bits; accumulated in the element type
  uint32_t count = 0;
};
struct BytesInit {
  std::vector<uint8_t> bytes;  // an explicit list, a mixed list, or a file's contents
};
using Initializer = std::variant<ConstantInit, SequenceInit, BytesInit>;

struct Resource {
  std::string name;
  DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;  // initialValuesDataType
  Initializer init;
  uint64_t initialBytes = 0;  // what init makes
  uint64_t sizeInBytes = 0;   // the buffer: sizeInBytes as given, else initialBytes rounded up to 4
  Location where;
};

// A tensor descriptor as written.
struct TensorDesc {
  DML_TENSOR_DATA_TYPE dataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
  uint32_t flags = 0;
  std::optional<uint32_t> dimensionCount;  // absent: Sizes' length
  std::vector<uint32_t> sizes;
  std::vector<uint32_t> strides;        // empty: packed
  uint64_t totalTensorSizeInBytes = 0;  // 0: vkdmlCalcBufferTensorSize
  uint32_t guaranteedBaseOffsetAlignment = 0;
  std::string field;  // "InputTensors[1]": how vkdml names it
};

struct SliceDesc {  // DML_OPERATOR_SLICE, lowered to SLICE1
  TensorDesc input, output;
  uint32_t dimensionCount = 0;
  std::vector<uint32_t> offsets, sizes, strides;
};
struct Slice1Desc {
  TensorDesc input, output;
  uint32_t dimensionCount = 0;
  std::vector<uint32_t> offsets, sizes;
  std::vector<int32_t> strides;
};
struct JoinDesc {
  uint32_t inputCount = 0;
  std::vector<TensorDesc> inputs;
  TensorDesc output;
  uint32_t axis = 0;
};
struct ScatterNdDesc {
  TensorDesc input, indices, updates, output;
  uint32_t inputDimensionCount = 0, indicesDimensionCount = 0;
};
struct DiagonalMatrixDesc {  // DML_OPERATOR_DIAGONAL_MATRIX, lowered to DIAGONAL_MATRIX1
  TensorDesc output;
  int32_t offset = 0;
  double value = 0;  // as written; a FLOAT, refused by the lowering where the output type cannot hold it
};
struct DiagonalMatrix1Desc {
  std::optional<TensorDesc> input;
  TensorDesc output;
  DML_TENSOR_DATA_TYPE valueDataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
  DML_SCALAR_UNION value{};
  int32_t diagonalFillBegin = 0, diagonalFillEnd = 0;
};
struct ConvolutionIntegerDesc {
  TensorDesc input;
  std::optional<TensorDesc> inputZeroPoint;
  TensorDesc filter;
  std::optional<TensorDesc> filterZeroPoint;
  TensorDesc output;
  uint32_t dimensionCount = 0;
  std::vector<uint32_t> strides, dilations, startPadding, endPadding;
  uint32_t groupCount = 0;
};
using OperatorDesc = std::variant<SliceDesc, Slice1Desc, JoinDesc, ScatterNdDesc, DiagonalMatrixDesc,
                                  DiagonalMatrix1Desc, ConvolutionIntegerDesc>;

// One resource bound to a bind point: the whole buffer from
// elementOffset * elementSizeInBytes on (elementCount is kept but, as in
// DxDispatch, does not limit a DML binding).
struct BindingSource {
  std::string resource;
  uint64_t elementOffset = 0, elementCount = 0, elementSizeInBytes = 0;  // 0: the resource's type size
  Location where;
};
struct BindPoint {
  std::string name;  // "InputTensors"
  std::vector<BindingSource> sources;
  Location where;
};

struct Dispatchable {
  std::string name;
  std::string typeName;  // as written, e.g. "DML_OPERATOR_JOIN"
  OperatorDesc desc;
  std::vector<BindPoint> initBindings;  // for OWNED_BY_DML inputs
  bool compileGraph = false;            // "dmlCompileType": "DmlCompileGraph" (only the log line differs)
  Location where;
  // Where each field of the descriptor was written, by vkdml's name for it
  // ("InputTensors[1].Sizes"), so that vkdml's errors point into the file.
  std::map<std::string, Location> fields;
  Location locate(const std::string& field) const;
};

struct DispatchCommand {
  std::string dispatchable;
  std::vector<BindPoint> bindings;
};
struct PrintCommand {
  std::string resource;
  bool verbose = false;
};
struct WriteFileCommand {
  std::string resource;
  std::string targetPath;  // as written; resolved against --output_path
  std::vector<uint32_t> dimensions;
};
struct Command {
  std::variant<DispatchCommand, PrintCommand, WriteFileCommand> command;
  Location where;
};

struct Model {
  std::vector<Resource> resources;
  std::vector<Dispatchable> dispatchables;
  std::vector<Command> commands;
  std::vector<std::string> warnings;  // members DxDispatch ignores, with where they are

  const Resource* findResource(const std::string& name) const;
  const Dispatchable* findDispatchable(const std::string& name) const;
};

}  // namespace dispatch
