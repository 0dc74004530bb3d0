// DML_JOIN: the page's examples, the ONNX Concat cases, random joins over
// every type and rank against a plain reference, many inputs, and every
// validation rule.
#include "json.hpp"
#include "support.hpp"

using test::Tensor;

namespace {

struct Join {
  std::vector<DML_TENSOR_DESC> inputs;
  DML_JOIN_OPERATOR_DESC desc{};
  DML_OPERATOR_DESC op{};

  const DML_OPERATOR_DESC& make(std::vector<Tensor>& in, Tensor& output, uint32_t axis) {
    inputs.clear();
    for (auto& t : in) inputs.push_back(*t.desc());
    desc = {static_cast<UINT>(inputs.size()), inputs.data(), output.desc(), axis};
    op = {DML_OPERATOR_JOIN, &desc};
    return op;
  }
};

// The reference: walk the output; the axis coordinate picks the input.
Tensor reference(const std::vector<Tensor>& inputs, const Tensor& output, uint32_t axis) {
  Tensor expected(output.type, output.sizes);
  for (uint64_t i = 0; i < expected.elementCount(); ++i) {
    std::vector<uint32_t> c = test::coordinatesOf(i, output.sizes);
    size_t k = 0;
    while (c[axis] >= inputs[k].sizes[axis]) c[axis] -= inputs[k++].sizes[axis];
    expected.set(i, inputs[k].get(test::indexOf(c, inputs[k].sizes)));
  }
  return expected;
}

std::vector<Tensor*> pointers(std::vector<Tensor>& tensors) {
  std::vector<Tensor*> out;
  for (auto& t : tensors) out.push_back(&t);
  return out;
}

Tensor filled(std::vector<uint32_t> sizes, int first) {
  Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, std::move(sizes));
  for (uint64_t i = 0; i < t.elementCount(); ++i) t.set(i, test::bitsOf(t.type, double(first + int(i))));
  return t;
}

void randomJoin(std::mt19937_64& rng, DML_TENSOR_DATA_TYPE type, uint32_t rank, uint32_t inputCount, uint64_t budget,
                bool strided) {
  std::vector<uint32_t> base = test::randomSizes(rng, rank, budget);
  uint32_t axis = test::uniform(rng, 0, rank - 1);
  std::vector<Tensor> inputs;
  std::vector<uint32_t> outSizes = base;
  outSizes[axis] = 0;
  for (uint32_t k = 0; k < inputCount; ++k) {
    std::vector<uint32_t> sizes = base;
    sizes[axis] = test::uniform(rng, 1, 4);
    outSizes[axis] += sizes[axis];
    inputs.emplace_back(
        type, sizes,
        strided && test::uniform(rng, 0, 1) ? test::randomStrides(rng, sizes, true) : std::vector<uint32_t>{});
    inputs.back().randomize(rng);
  }
  Tensor output(type, outSizes, strided ? test::randomStrides(rng, outSizes, false) : std::vector<uint32_t>{});
  output.randomize(rng);
  for (Tensor& input : inputs) test::randomAlignment(rng, {&input});
  test::randomAlignment(rng, {&output});
  CAPTURE(axis);
  Join j;
  test::run(j.make(inputs, output, axis), pointers(inputs), {&output});
  test::expectSameElements(output, reference(inputs, output, axis));
}

}  // namespace

TEST_CASE("join: worked examples from the DirectML page") {
  {
    std::vector<Tensor> in = {filled({1, 1, 2, 3}, 1), filled({1, 1, 2, 4}, 100)};
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 7});
    Join j;
    test::run(j.make(in, out, 3), pointers(in), {&out});
    test::expectSameElements(out, reference(in, out, 3));
  }
  const std::vector<std::pair<uint32_t, std::vector<uint32_t>>> cases = {
      {1, {1, 3, 2, 2}}, {2, {1, 1, 6, 2}}, {3, {1, 1, 2, 6}}};
  for (const auto& [axis, sizes] : cases) {
    std::vector<Tensor> in = {filled({1, 1, 2, 2}, 1), filled({1, 1, 2, 2}, 5), filled({1, 1, 2, 2}, 9)};
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, sizes);
    Join j;
    test::run(j.make(in, out, axis), pointers(in), {&out});
    Tensor expected(DML_TENSOR_DATA_TYPE_FLOAT32, sizes);
    std::vector<int> values;
    if (axis == 3)
      values = {1, 2, 5, 6, 9, 10, 3, 4, 7, 8, 11, 12};  // printed on the page
    else
      for (int v = 1; v <= 12; ++v) values.push_back(v);  // axes 1 and 2 keep the inputs' order
    for (size_t i = 0; i < values.size(); ++i) expected.set(i, test::bitsOf(expected.type, values[i]));
    CAPTURE(axis);
    test::expectSameElements(out, expected);
  }
}

TEST_CASE("join: ONNX conformance cases") {
  test::forEachConformanceCase("JOIN", 13, [](const test::Json& c) {
    std::vector<Tensor> in;
    for (const auto& t : c["inputs"]["InputTensors"].items) in.push_back(test::tensorFromJson(t));
    Tensor expected = test::tensorFromJson(c["output"]);
    Tensor out(expected.type, expected.sizes);
    Join j;
    test::run(j.make(in, out, static_cast<uint32_t>(c["params"]["Axis"].asUint())), pointers(in), {&out});
    test::expectSameElements(out, expected);
  });
}

TEST_CASE("join: random joins of every type and rank, packed") {
  std::mt19937_64 rng(63);
  for (auto type : test::allTypes())
    for (uint32_t rank = 1; rank <= 8; ++rank) {
      CAPTURE(vkdml::toString(type));
      CAPTURE(rank);
      randomJoin(rng, type, rank, test::uniform(rng, 1, 4), 800, false);
    }
}

TEST_CASE("join: random joins of every type and rank, strided and broadcast inputs, strided output") {
  std::mt19937_64 rng(64);
  for (auto type : test::allTypes())
    for (uint32_t rank = 1; rank <= 8; ++rank) {
      CAPTURE(vkdml::toString(type));
      CAPTURE(rank);
      randomJoin(rng, type, rank, test::uniform(rng, 1, 4), 800, true);
    }
}

TEST_CASE("join: 70 inputs in one operator") {
  std::mt19937_64 rng(70);
  for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT8})
    for (bool strided : {false, true}) {
      CAPTURE(vkdml::toString(type));
      randomJoin(rng, type, 3, 70, 60, strided);
    }
}

TEST_CASE("join: one input is a copy") {
  std::mt19937_64 rng(1);
  randomJoin(rng, DML_TENSOR_DATA_TYPE_FLOAT64, 5, 1, 500, true);
}

TEST_CASE("join: validation rules") {
  std::vector<Tensor> in = {filled({2, 3}, 0), filled({2, 4}, 0)};
  Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 7});
  Join j;
  REQUIRE_FALSE(vkdml::validate(j.make(in, out, 1)).has_value());

  SUBCASE("InputCount >= 1") {
    j.make(in, out, 1);
    j.desc.InputCount = 0;
    test::expectInvalid(j.op, "InputCount");
  }
  SUBCASE("InputTensors not null") {
    j.make(in, out, 1);
    j.desc.InputTensors = nullptr;
    test::expectInvalid(j.op, "InputTensors");
  }
  SUBCASE("Axis < DimensionCount") {
    test::expectInvalid(j.make(in, out, 2), "Axis", {"2"});
  }
  SUBCASE("the data types match") {
    in[1].type = DML_TENSOR_DATA_TYPE_INT32;
    test::expectInvalid(j.make(in, out, 1), "InputTensors[1].DataType", {"INT32", "FLOAT32"});
  }
  SUBCASE("the dimension counts match") {
    in[1] = Tensor(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 4});
    test::expectInvalid(j.make(in, out, 1), "InputTensors[1].DimensionCount", {"3"});
  }
  SUBCASE("sizes off the axis match the output's") {
    in[1] = filled({3, 4}, 0);
    test::expectInvalid(j.make(in, out, 1), "InputTensors[1].Sizes[0]", {"2", "3"});
  }
  SUBCASE("the axis sizes sum to the output's") {
    Tensor wide(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 8});
    test::expectInvalid(j.make(in, wide, 1), "OutputTensor.Sizes[1]", {"7", "8"});
  }
  SUBCASE("the axis sizes exceed the output's at the first input that passes it") {
    Tensor narrow(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 5});
    test::expectInvalid(j.make(in, narrow, 1), "InputTensors[1].Sizes[1]", {"7", "5"});
  }
  SUBCASE("an input's own descriptor is checked") {
    j.make(in, out, 1);
    in[1].buffer.TotalTensorSizeInBytes = 4;
    j.inputs[1] = in[1].tensor;
    test::expectInvalid(j.op, "InputTensors[1].TotalTensorSizeInBytes");
  }
}

TEST_CASE("join: a few long rows spread over many workgroups") {
  // Each input collapses to one contiguous run of 16-byte vectors, which the
  // copy kernel splits over hundreds of workgroups; the odd sizes also take
  // the element-wise path.
  std::mt19937_64 rng(2);
  for (uint32_t width : {300000u, 300001u}) {
    CAPTURE(width);
    std::vector<Tensor> in = {Tensor(DML_TENSOR_DATA_TYPE_UINT8, {3, width}),
                              Tensor(DML_TENSOR_DATA_TYPE_UINT8, {2, width})};
    for (auto& t : in) t.randomize(rng);
    Tensor out(DML_TENSOR_DATA_TYPE_UINT8, {5, width});
    Join j;
    test::run(j.make(in, out, 0), pointers(in), {&out});
    test::expectSameElements(out, reference(in, out, 0));
  }
}

TEST_CASE("join: one long row beside many short ones (a case the fuzzer found)") {
  // 600000 rows of 4 that do not merge, and one packed input that collapses
  // to a single row of 2.4 M elements: the rows share their lanes, so the
  // long row is walked in pieces, or each of its lanes would loop past what
  // lavapipe allows (65535 passes).
  std::mt19937_64 rng(3);
  std::vector<Tensor> in = {Tensor(DML_TENSOR_DATA_TYPE_UINT8, {1, 600000, 4}, {4800000, 8, 1}),
                            Tensor(DML_TENSOR_DATA_TYPE_UINT8, {1, 600000, 4})};
  for (auto& t : in) t.randomize(rng);
  Tensor out(DML_TENSOR_DATA_TYPE_UINT8, {2, 600000, 4});
  Join j;
  test::run(j.make(in, out, 0), pointers(in), {&out});
  test::expectSameElements(out, reference(in, out, 0));
}
