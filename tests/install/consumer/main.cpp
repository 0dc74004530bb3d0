// A user of the installed package: joins three 1x1x2x2 tensors on axis 3,
// the example from DirectML's DML_JOIN page.
#include <vkdml/vkdml.hpp>

#include <cstdio>

// Descriptor code written for DirectML defines this helper itself (DirectML.h
// has none); vkdml's header must not clash with it.
inline UINT64 DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount, const UINT* sizes,
                                      const UINT* strides) {
  UINT64 last = 0, count = 1;
  for (UINT i = 0; i < dimensionCount; ++i) {
    count *= sizes[i];
    if (strides) last += UINT64(sizes[i] - 1) * strides[i];
  }
  const UINT64 bytes = (strides ? last + 1 : count) * (dataType == DML_TENSOR_DATA_TYPE_FLOAT32 ? 4 : 1);
  return (bytes + 3) & ~UINT64(3);
}

int main() {
  auto device = vkdml::Device::create();
  UINT inSizes[4] = {1, 1, 2, 2}, outSizes[4] = {1, 1, 2, 6};
  DML_BUFFER_TENSOR_DESC inBuffer{DML_TENSOR_DATA_TYPE_FLOAT32,
                                  DML_TENSOR_FLAG_NONE,
                                  4,
                                  inSizes,
                                  nullptr,
                                  DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, inSizes, nullptr),
                                  0};
  DML_BUFFER_TENSOR_DESC outBuffer{DML_TENSOR_DATA_TYPE_FLOAT32,
                                   DML_TENSOR_FLAG_NONE,
                                   4,
                                   outSizes,
                                   nullptr,
                                   DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, outSizes, nullptr),
                                   0};
  DML_TENSOR_DESC inputs[3] = {
      {DML_TENSOR_TYPE_BUFFER, &inBuffer}, {DML_TENSOR_TYPE_BUFFER, &inBuffer}, {DML_TENSOR_TYPE_BUFFER, &inBuffer}};
  DML_TENSOR_DESC output{DML_TENSOR_TYPE_BUFFER, &outBuffer};
  DML_JOIN_OPERATOR_DESC join{3, inputs, &output, 3};
  vkdml::Operator op = device->createOperator({DML_OPERATOR_JOIN, &join});
  vkdml::CompiledOperator compiled = device->compileOperator(op);

  float data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  vkdml::Buffer in = device->createBuffer(3 * 16 * 4), out = device->createBuffer(48);
  for (int i = 0; i < 3; ++i) in.upload(data + 4 * i, 16, 64 * i);
  vkdml::BindingTable table = compiled.createBindingTable();
  table.bindInputs({{&in, 0, 16}, {&in, 64, 16}, {&in, 128, 16}});
  table.bindOutputs({{&out, 0, 48}});
  device->execute(compiled, table);
  float result[12];
  out.download(result, sizeof result);
  std::printf("joined:");
  for (float v : result) std::printf(" %g", v);
  std::printf("\n");
  return 0;
}
