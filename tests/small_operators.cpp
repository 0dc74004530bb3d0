#include "small_operators.hpp"

#include <exception>

namespace test {

namespace {
constexpr auto U32 = DML_TENSOR_DATA_TYPE_UINT32;

void fill(Tensor& t, uint64_t first, uint64_t step) {
  for (uint64_t i = 0; i < t.elementCount(); ++i) t.set(i, first + i * step);
}

void describeInputs(SmallOperator& op) {
  op.inputDescs.clear();
  for (auto& t : op.inputs) op.inputDescs.push_back(*t.desc());
}
}  // namespace

std::vector<vkdml::BufferBinding> SmallOperator::inputBindings(const std::vector<vkdml::Buffer>& buffers) const {
  std::vector<int> order = slots;
  if (order.empty())
    for (int i = 0; i < int(inputs.size()); ++i) order.push_back(i);
  std::vector<vkdml::BufferBinding> bindings;
  for (int i : order)
    bindings.push_back(i < 0 ? vkdml::BufferBinding{} : vkdml::BufferBinding{&buffers[i], 0, inputs[i].bytes.size()});
  return bindings;
}

std::unique_ptr<SmallOperator> smallJoin() {
  auto op = std::make_unique<SmallOperator>();
  op->name = "join";
  op->inputs = {Tensor(U32, {2, 3}), Tensor(U32, {1, 3})};
  fill(op->inputs[0], 1, 1);
  fill(op->inputs[1], 100, 1);
  op->output = op->expected = Tensor(U32, {3, 3});
  for (uint64_t i = 0; i < 9; ++i) op->expected.set(i, i < 6 ? 1 + i : 100 + i - 6);
  describeInputs(*op);
  op->join = {2, op->inputDescs.data(), op->output.desc(), 0};
  op->desc = {DML_OPERATOR_JOIN, &op->join};
  return op;
}

std::unique_ptr<SmallOperator> smallSlice() {
  auto op = std::make_unique<SmallOperator>();
  op->name = "slice1";
  op->inputs = {Tensor(DML_TENSOR_DATA_TYPE_UINT16, {40})};
  fill(op->inputs[0], 5, 3);
  op->output = op->expected = Tensor(DML_TENSOR_DATA_TYPE_UINT16, {40});
  for (uint64_t i = 0; i < 40; ++i) op->expected.set(i, 5 + (39 - i) * 3);
  op->u1 = {0};
  op->u2 = {40};
  op->i1 = {-1};
  op->slice = {op->inputs[0].desc(), op->output.desc(), 1, op->u1.data(), op->u2.data(), op->i1.data()};
  op->desc = {DML_OPERATOR_SLICE1, &op->slice};
  return op;
}

std::unique_ptr<SmallOperator> smallScatter() {
  auto op = std::make_unique<SmallOperator>();
  op->name = "scatter_nd";
  op->inputs = {Tensor(U32, {4, 16}), Tensor(U32, {2, 1}), Tensor(U32, {2, 16})};
  fill(op->inputs[0], 1, 1);
  op->inputs[1].set(0, 3);
  op->inputs[1].set(1, 0);
  fill(op->inputs[2], 1000, 1);
  op->output = op->expected = Tensor(U32, {4, 16});
  for (uint64_t i = 0; i < 64; ++i) {
    const uint64_t row = i / 16, column = i % 16;
    op->expected.set(i, row == 3 ? 1000 + column : row == 0 ? 1016 + column : 1 + i);
  }
  op->scatter = {op->inputs[0].desc(), op->inputs[1].desc(), op->inputs[2].desc(), op->output.desc(), 2, 2};
  op->desc = {DML_OPERATOR_SCATTER_ND, &op->scatter};
  return op;
}

std::unique_ptr<SmallOperator> smallDiagonal() {
  auto op = std::make_unique<SmallOperator>();
  op->name = "diagonal_matrix1";
  op->output = op->expected = Tensor(U32, {5, 5});
  for (uint64_t i = 0; i < 25; ++i) op->expected.set(i, i % 6 == 0 ? 7 : 0);
  op->slots = {-1};
  op->diagonal.OutputTensor = op->output.desc();
  op->diagonal.ValueDataType = U32;
  op->diagonal.Value.UInt32 = 7;
  op->diagonal.DiagonalFillBegin = 0;
  op->diagonal.DiagonalFillEnd = 1;
  op->desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &op->diagonal};
  return op;
}

std::unique_ptr<SmallOperator> smallConvolution(uint32_t outputChannels, uint32_t seed) {
  auto op = std::make_unique<SmallOperator>();
  op->name = "convolution_integer/" + std::to_string(outputChannels);
  const uint32_t channels = 3, pixels = 16;
  op->inputs = {Tensor(DML_TENSOR_DATA_TYPE_UINT8, {1, channels, 4, 4}),
                Tensor(DML_TENSOR_DATA_TYPE_INT8, {outputChannels, channels, 1, 1})};
  std::mt19937_64 rng(seed);
  for (auto& t : op->inputs) t.randomize(rng);
  op->output = op->expected = Tensor(DML_TENSOR_DATA_TYPE_INT32, {1, outputChannels, 4, 4});
  for (uint32_t o = 0; o < outputChannels; ++o)
    for (uint32_t p = 0; p < pixels; ++p) {
      int32_t sum = 0;
      for (uint32_t c = 0; c < channels; ++c)
        sum += int32_t(op->inputs[0].get(c * pixels + p)) * int8_t(op->inputs[1].get(o * channels + c));
      op->expected.set(o * pixels + p, uint32_t(sum));
    }
  op->slots = {0, -1, 1, -1};  // no zero points
  op->u1 = {1, 1, 1, 1};       // strides, dilations
  op->u2 = {0, 0};             // padding
  op->convolution = {
      op->inputs[0].desc(), nullptr,       op->inputs[1].desc(), nullptr, op->output.desc(), 2, op->u1.data(),
      op->u1.data() + 2,    op->u2.data(), op->u2.data(),        1};
  op->desc = {DML_OPERATOR_CONVOLUTION_INTEGER, &op->convolution};
  return op;
}

std::vector<std::unique_ptr<SmallOperator>> oneOfEach() {
  std::vector<std::unique_ptr<SmallOperator>> all;
  all.push_back(smallJoin());
  all.push_back(smallSlice());
  all.push_back(smallScatter());
  all.push_back(smallDiagonal());
  all.push_back(smallConvolution(8));
  return all;
}

std::vector<vkdml::Buffer> uploadInputs(vkdml::Device& device, const SmallOperator& op) {
  std::vector<vkdml::Buffer> inputs;
  for (const auto& t : op.inputs) {
    inputs.push_back(device.createBuffer(t.bytes.size()));
    inputs.back().upload(t.bytes.data(), t.bytes.size());
  }
  return inputs;
}

std::string runSmall(vkdml::Device& device, const vkdml::CompiledOperator& compiled, SmallOperator& op) {
  try {
    std::vector<vkdml::Buffer> inputs = uploadInputs(device, op);
    vkdml::Buffer output = device.createBuffer(op.output.bytes.size());
    output.fill(0xA5A5A5A5u, output.size() & ~uint64_t(3));
    vkdml::BindingTable table = compiled.createBindingTable();
    table.bindInputs(op.inputBindings(inputs));
    table.bindOutputs({{&output, 0, output.size()}});
    device.execute(compiled, table);
    std::vector<uint8_t> result(output.size());
    output.download(result.data(), result.size());
    if (result != op.expected.bytes) return op.name + ": wrong output";
    return {};
  } catch (const std::exception& e) {
    return op.name + ": " + e.what();
  }
}

std::string runSmall(vkdml::Device& device, SmallOperator& op) {
  try {
    return runSmall(device, device.compileOperator(device.createOperator(op.desc)), op);
  } catch (const std::exception& e) {
    return op.name + ": " + e.what();
  }
}

}  // namespace test
