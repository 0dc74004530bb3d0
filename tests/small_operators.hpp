// Small operators of each type with their expected outputs, run end to end
// on any Device (not only the test device) and from any thread: for the
// runtime's own tests (threads, allocation failures, the pipeline cache).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support.hpp"

namespace test {

struct SmallOperator {
  std::string name;
  std::vector<Tensor> inputs;  // those present
  // The index into `inputs` of each input binding, -1 where absent (empty:
  // each input in order).
  std::vector<int> slots;
  Tensor output, expected;
  // Binds `buffers` (one per input) as the operator's input bindings.
  std::vector<vkdml::BufferBinding> inputBindings(const std::vector<vkdml::Buffer>& buffers) const;
  // The descriptor and the arrays it points into (the object does not move).
  std::vector<DML_TENSOR_DESC> inputDescs;
  std::vector<uint32_t> u1, u2;
  std::vector<int32_t> i1;
  DML_JOIN_OPERATOR_DESC join{};
  DML_SLICE1_OPERATOR_DESC slice{};
  DML_SCATTER_ND_OPERATOR_DESC scatter{};
  DML_DIAGONAL_MATRIX1_OPERATOR_DESC diagonal{};
  DML_CONVOLUTION_INTEGER_OPERATOR_DESC convolution{};
  DML_OPERATOR_DESC desc{};
  SmallOperator() = default;
  SmallOperator(const SmallOperator&) = delete;
};

// A Join of two UINT32 tensors.
std::unique_ptr<SmallOperator> smallJoin();
// A Slice1 that reverses a UINT16 vector.
std::unique_ptr<SmallOperator> smallSlice();
// A ScatterND of 64-byte rows: three dispatches and binding-table scratch.
std::unique_ptr<SmallOperator> smallScatter();
// A DiagonalMatrix1 without input: 7 on the diagonal of a 5x5 UINT32 matrix.
std::unique_ptr<SmallOperator> smallDiagonal();
// A 1x1 ConvolutionInteger (UINT8 x INT8, 3 input channels, 4x4 pixels) with
// `outputChannels` output channels: each count up to 128 tiles differently,
// so each is a pipeline of its own.
std::unique_ptr<SmallOperator> smallConvolution(uint32_t outputChannels, uint32_t seed = 1);
// One of each.
std::vector<std::unique_ptr<SmallOperator>> oneOfEach();

// A buffer holding each of `op`'s inputs.
std::vector<vkdml::Buffer> uploadInputs(vkdml::Device& device, const SmallOperator& op);

// Runs `compiled` (compiled from `op`) on `device` through a binding table of
// its own and compares the output with `op.expected`. Returns what went
// wrong, or nothing; never asserts (it runs on any thread).
std::string runSmall(vkdml::Device& device, const vkdml::CompiledOperator& compiled, SmallOperator& op);
// Creates, compiles and runs `op`.
std::string runSmall(vkdml::Device& device, SmallOperator& op);

}  // namespace test
