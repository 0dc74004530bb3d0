// DML_DIAGONAL_MATRIX1: the page's examples, the ONNX EyeLike and Trilu
// cases, random bands over every type, rank and layout against a plain
// reference, the whole INT32 range of the band, and every validation rule.
#include <cmath>
#include <limits>

#include "json.hpp"
#include "support.hpp"

using test::Tensor;

namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

struct Diagonal {
  DML_DIAGONAL_MATRIX1_OPERATOR_DESC desc{};
  DML_OPERATOR_DESC op{};
  const DML_OPERATOR_DESC& make(Tensor* input, Tensor& output, uint64_t valueBits, int32_t begin, int32_t end) {
    desc.InputTensor = input ? input->desc() : nullptr;
    desc.OutputTensor = output.desc();
    desc.ValueDataType = output.type;
    desc.Value.UInt64 = valueBits;
    desc.DiagonalFillBegin = begin;
    desc.DiagonalFillEnd = end;
    op = {DML_OPERATOR_DIAGONAL_MATRIX1, &desc};
    return op;
  }
};

// The page's pseudocode, in 64-bit arithmetic.
Tensor reference(const Tensor* input, const Tensor& output, uint64_t valueBits, int32_t begin, int32_t end) {
  Tensor expected(output.type, output.sizes);
  const size_t r = output.sizes.size();
  for (uint64_t i = 0; i < expected.elementCount(); ++i) {
    std::vector<uint32_t> c = test::coordinatesOf(i, output.sizes);
    int64_t topX = int64_t(c[r - 1]) - int64_t(c[r - 2]);
    bool useValue = (end >= begin) ^ (topX >= begin) ^ (topX < end);
    uint64_t mask = output.elementSize() == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * output.elementSize())) - 1;
    expected.set(i, useValue ? (valueBits & mask) : input ? input->get(i) : 0);
  }
  return expected;
}

void check(Tensor* input, Tensor& output, uint64_t valueBits, int32_t begin, int32_t end) {
  CAPTURE(begin);
  CAPTURE(end);
  Diagonal d;
  test::run(d.make(input, output, valueBits, begin, end), {input}, {&output});
  test::expectSameElements(output, reference(input, output, valueBits, begin, end));
}

Tensor matrix(std::vector<double> values, std::vector<uint32_t> sizes) {
  Tensor t(DML_TENSOR_DATA_TYPE_FLOAT32, std::move(sizes));
  for (size_t i = 0; i < values.size(); ++i) t.set(i, test::bitsOf(t.type, values[i]));
  return t;
}

uint64_t f32(double v) {
  return test::bitsOf(DML_TENSOR_DATA_TYPE_FLOAT32, v);
}

}  // namespace

TEST_CASE("diagonal_matrix1: worked examples from the DirectML page") {
  Diagonal d;
  // Outputs start as garbage: each zero expected must be written, not left.
  std::mt19937_64 rng(98);
  SUBCASE("Begin 0, End 1, Value 1: identity (the page prints 1s though it says Value 7)") {
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 5});
    out.randomize(rng);
    test::run(d.make(nullptr, out, f32(1), 0, 1), {nullptr}, {&out});
    test::expectSameElements(out, matrix({1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0}, {4, 5}));
  }
  SUBCASE("Begin 0, End 3, Value 7: a band three wide") {
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 5});
    out.randomize(rng);
    test::run(d.make(nullptr, out, f32(7), 0, 3), {nullptr}, {&out});
    test::expectSameElements(out, matrix({7, 7, 7, 0, 0, 0, 7, 7, 7, 0, 0, 0, 7, 7, 7, 0, 0, 0, 7, 7}, {4, 5}));
  }
  Tensor input = matrix({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, {4, 5});
  SUBCASE("with an input, Value 0, Begin INT32_MIN, End 1: the strict upper triangle kept") {
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 5});
    out.randomize(rng);
    test::run(d.make(&input, out, f32(0), kMin, 1), {&input}, {&out});
    test::expectSameElements(out, matrix({0, 2, 3, 4, 5, 0, 0, 8, 9, 10, 0, 0, 0, 14, 15, 0, 0, 0, 0, 20}, {4, 5}));
  }
  SUBCASE("with an input, Begin 1, End 0: only the diagonal kept") {
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 5});
    out.randomize(rng);
    test::run(d.make(&input, out, f32(0), 1, 0), {&input}, {&out});
    test::expectSameElements(out, matrix({1, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 13, 0, 0, 0, 0, 0, 19, 0}, {4, 5}));
  }
}

TEST_CASE("diagonal_matrix1: ONNX conformance cases (EyeLike, Trilu)") {
  test::forEachConformanceCase("DIAGONAL_MATRIX1", 19, [](const test::Json& c) {
    const test::Json& params = c["params"];
    Tensor expected = test::tensorFromJson(c["output"]);
    Tensor output(expected.type, expected.sizes);
    output.randomize(*std::make_unique<std::mt19937_64>(5));
    std::optional<Tensor> input;
    if (c["inputs"].has("InputTensor")) input = test::tensorFromJson(c["inputs"]["InputTensor"]);
    DML_TENSOR_DATA_TYPE valueType = test::typeFromName(params["ValueDataType"].asString());
    REQUIRE(valueType == output.type);
    uint64_t value = valueType == DML_TENSOR_DATA_TYPE_UINT64 ? params["Value"].asUint()
                     : (valueType == DML_TENSOR_DATA_TYPE_FLOAT16 || valueType == DML_TENSOR_DATA_TYPE_FLOAT32 ||
                        valueType == DML_TENSOR_DATA_TYPE_FLOAT64)
                         ? test::bitsOf(valueType, params["Value"].asDouble())
                         : test::bitsOfInteger(valueType, params["Value"].asInt());
    Diagonal d;
    Tensor* in = input ? &*input : nullptr;
    test::run(d.make(in, output, value, static_cast<int32_t>(params["DiagonalFillBegin"].asInt()),
                     static_cast<int32_t>(params["DiagonalFillEnd"].asInt())),
              {in}, {&output});
    test::expectSameElements(output, expected);
  });
}

TEST_CASE("diagonal_matrix1: random bands over every type, rank 2 to 4, with and without an input") {
  std::mt19937_64 rng(93);
  const int32_t edges[] = {kMin, kMin + 1, -7, -3, -1, 0, 1, 2, 5, kMax - 1, kMax};
  for (auto type : test::allTypes())
    for (uint32_t rank = 2; rank <= 4; ++rank)
      for (int trial = 0; trial < 4; ++trial) {
        CAPTURE(vkdml::toString(type));
        CAPTURE(rank);
        std::vector<uint32_t> sizes = test::randomSizes(rng, rank, 600);
        bool withInput = trial % 2 == 0, strided = trial >= 2;
        Tensor output(type, sizes, strided ? test::randomStrides(rng, sizes, false) : std::vector<uint32_t>{});
        output.randomize(rng);
        Tensor input(type, sizes, strided ? test::randomStrides(rng, sizes, true) : std::vector<uint32_t>{});
        input.randomize(rng);
        test::randomAlignment(rng, {&input, &output});
        int32_t begin = test::uniform(rng, 0, 1) ? edges[test::uniform(rng, 0, 10)]
                                                 : static_cast<int32_t>(test::uniform(rng, 0, 12)) - 6;
        int32_t end = test::uniform(rng, 0, 1) ? edges[test::uniform(rng, 0, 10)]
                                               : static_cast<int32_t>(test::uniform(rng, 0, 12)) - 6;
        check(withInput ? &input : nullptr, output, rng(), begin, end);
      }
}

// Rows long enough that a CPU device fills and copies them with transfer
// commands (runtime/ops/diagonal_matrix1.cpp, planTransfer): 4- and 8-byte
// types, 8-byte Values with equal halves (a 4-byte fill pattern) and not,
// bands inside, at and past the edges, padded outer strides.
TEST_CASE("diagonal_matrix1: wide rows, 4- and 8-byte elements, padded outer strides") {
  std::mt19937_64 rng(94);
  const int32_t edges[] = {kMin, -40, -1, 0, 1, 3, 40, kMax};
  for (auto type : test::allTypes()) {
    const uint32_t es = vkdmlElementSizeInBytes(type);
    if (es < 4) continue;
    for (int trial = 0; trial < 6; ++trial) {
      CAPTURE(vkdml::toString(type));
      CAPTURE(trial);
      const uint32_t b = test::uniform(rng, 1, 3), h = test::uniform(rng, 3, 40), w = test::uniform(rng, 32, 100);
      const uint32_t pad = trial % 3 == 0 ? 0 : test::uniform(rng, 1, 9);
      const std::vector<uint32_t> sizes = {b, h, w}, strides = {h * (w + pad), w + pad, 1};
      Tensor output(type, sizes, pad ? strides : std::vector<uint32_t>{});
      output.randomize(rng);
      Tensor input(type, sizes, trial % 2 ? strides : std::vector<uint32_t>{});
      input.randomize(rng);
      const uint64_t half = rng() & 0xFFFFFFFFu;
      const uint64_t value = es == 8 && trial % 2 == 0 ? half | half << 32 : rng();
      check(trial < 4 ? &input : nullptr, output, value, edges[test::uniform(rng, 0, 7)],
            edges[test::uniform(rng, 0, 7)]);
    }
  }
}

TEST_CASE("diagonal_matrix1: rows of one element, padded (a CPU device fills elements, never the gaps)") {
  // Found by the fuzzer: {227, 1} with strides {4, 1} collapses to one
  // dimension of stride 4, which the CPU plan once filled as a run.
  std::mt19937_64 rng(95);
  for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_INT64}) {
    for (const auto& [sizes, strides] : {std::pair<std::vector<uint32_t>, std::vector<uint32_t>>{{227, 1}, {4, 1}},
                                         {{3, 300, 1}, {900, 3, 1}},
                                         {{2, 64, 32}, {64 * 40, 40, 1}}}) {
      CAPTURE(vkdml::toString(type));
      CAPTURE(sizes[0]);
      Tensor output(type, sizes, strides), input(type, sizes, strides);
      output.randomize(rng);
      input.randomize(rng);
      check(nullptr, output, 0, 0, 1);
      check(&input, output, 0, kMin, 1);
    }
  }
}

TEST_CASE("diagonal_matrix1: random unit-stride rows of 4- and 8-byte elements (a CPU device's transfer plans)") {
  // Rows contiguous and elements of 4 bytes (or 8 with equal halves): the
  // shapes where a CPU device fills and copies instead of running the
  // kernel, per row or in layers, over padded and broadcast outer strides
  // and rows from 1 to 200 elements (1 in a quarter of the trials).
  std::mt19937_64 rng(96);
  const int32_t edges[] = {kMin, -3, -1, 0, 1, 2, 40, kMax};
  auto rowStrides = [&](const std::vector<uint32_t>& sizes, bool broadcast) {
    std::vector<uint32_t> strides(sizes.size());
    uint64_t extent = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
      const bool zero = broadcast && d + 1 < sizes.size() && test::uniform(rng, 0, 3) == 0;
      strides[d] = zero ? 0 : static_cast<uint32_t>(extent);
      // Padding after a dimension pads the next outer one's stride (rows too).
      if (!zero) extent = extent * sizes[d] + test::uniform(rng, 0, 1) * test::uniform(rng, 1, 5);
    }
    return strides;
  };
  for (int trial = 0; trial < 64; ++trial) {
    CAPTURE(trial);
    const auto type = trial % 3 == 2 ? DML_TENSOR_DATA_TYPE_UINT64 : DML_TENSOR_DATA_TYPE_FLOAT32;
    const uint32_t rank = test::uniform(rng, 2, 4);
    std::vector<uint32_t> sizes(rank);
    for (uint32_t d = 0; d < rank; ++d) sizes[d] = d + 2 < rank ? test::uniform(rng, 1, 3) : test::uniform(rng, 1, 200);
    if (trial % 8 < 2) sizes[rank - 1] = 1;  // columns: rows of one element, with and without an input
    Tensor output(type, sizes, rowStrides(sizes, false)), input(type, sizes, rowStrides(sizes, true));
    output.randomize(rng);
    input.randomize(rng);
    test::randomAlignment(rng, {&input, &output});
    const uint64_t half = rng() & 0xFFFFFFFFu;
    int32_t begin = edges[test::uniform(rng, 0, 7)], end = edges[test::uniform(rng, 0, 7)];
    if (sizes[rank - 1] == 1) {  // a narrow band: Value in a few rows, the rest the input or zeros
      begin = -static_cast<int32_t>(test::uniform(rng, 0, 3));
      end = begin + static_cast<int32_t>(test::uniform(rng, 1, 2));
    }
    check(trial % 2 ? &input : nullptr, output, half | half << 32, begin, end);
  }
}

TEST_CASE("diagonal_matrix1: Begin and End across the whole INT32 range, inverted ranges included") {
  std::mt19937_64 rng(32);
  const int32_t edges[] = {kMin, kMin + 1, -1, 0, 1, kMax - 1, kMax};
  Tensor input(DML_TENSOR_DATA_TYPE_INT32, {3, 5, 7});
  input.randomize(rng);
  for (int32_t begin : edges)
    for (int32_t end : edges) {
      Tensor output(DML_TENSOR_DATA_TYPE_INT32, {3, 5, 7});
      check(&input, output, 0xABCD1234u, begin, end);
    }
}

TEST_CASE("diagonal_matrix1: masked positions are exactly Value where the input holds NaN or infinity") {
  std::mt19937_64 rng(99);
  for (auto type : {DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64}) {
    CAPTURE(vkdml::toString(type));
    Tensor input(type, {2, 6, 6});
    const double specials[] = {std::nan(""), INFINITY, -INFINITY, -0.0};
    for (uint64_t i = 0; i < input.elementCount(); ++i) input.set(i, test::bitsOf(type, specials[i % 4]));
    // Garbage in the output before each run: +0.0 must be written, not left.
    Tensor output(type, {2, 6, 6});
    output.randomize(rng);
    check(&input, output, test::bitsOf(type, 0.0), 1, kMax);  // tril: zero-fill above the diagonal
    // A NaN Value with its payload bits, too.
    output.randomize(rng);
    check(&input, output, type == DML_TENSOR_DATA_TYPE_FLOAT16 ? 0x7E01 : test::bitsOf(type, -std::nan("")), kMin, 0);
  }
}

TEST_CASE("diagonal_matrix1: the ONNX forms EyeLike(k) and Trilu(upper/lower, k) on stacks of matrices") {
  std::mt19937_64 rng(7);
  for (int k : {-4, -1, 0, 1, 3, 9}) {
    CAPTURE(k);
    // EyeLike: ones on diagonal k, no input. Every output starts as
    // garbage: each zero expected must be written, not left.
    Tensor eye(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 5, 7});
    eye.randomize(rng);
    Diagonal d;
    test::run(d.make(nullptr, eye, f32(1), k, k + 1), {nullptr}, {&eye});
    for (uint64_t i = 0; i < eye.elementCount(); ++i) {
      auto c = test::coordinatesOf(i, eye.sizes);
      REQUIRE(eye.get(i) == (int(c[2]) - int(c[1]) == k ? f32(1) : 0));
    }
    Tensor input(DML_TENSOR_DATA_TYPE_INT64, {3, 6, 4});
    input.randomize(rng);
    // Trilu upper: keep x - y >= k, zero-fill [INT32_MIN, k).
    Tensor upper(DML_TENSOR_DATA_TYPE_INT64, {3, 6, 4});
    upper.randomize(rng);
    test::run(d.make(&input, upper, 0, kMin, k), {&input}, {&upper});
    // Trilu lower: keep x - y <= k, zero-fill [k + 1, INT32_MAX).
    Tensor lower(DML_TENSOR_DATA_TYPE_INT64, {3, 6, 4});
    lower.randomize(rng);
    test::run(d.make(&input, lower, 0, k + 1, kMax), {&input}, {&lower});
    for (uint64_t i = 0; i < input.elementCount(); ++i) {
      auto c = test::coordinatesOf(i, input.sizes);
      int diagonal = int(c[2]) - int(c[1]);
      REQUIRE(upper.get(i) == (diagonal >= k ? input.get(i) : 0));
      REQUIRE(lower.get(i) == (diagonal <= k ? input.get(i) : 0));
    }
  }
}

TEST_CASE("diagonal_matrix1: validation rules") {
  Tensor input(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 5});
  Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 5});
  Diagonal d;
  REQUIRE_FALSE(vkdml::validate(d.make(&input, output, 0, 0, 1)).has_value());
  REQUIRE_FALSE(vkdml::validate(d.make(nullptr, output, 0, 0, 1)).has_value());

  SUBCASE("the output has 2 to 4 dimensions") {
    Tensor flat(DML_TENSOR_DATA_TYPE_FLOAT32, {20});
    test::expectInvalid(d.make(nullptr, flat, 0, 0, 1), "OutputTensor.DimensionCount", {"2..4", "1"});
    Tensor five(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 4, 5});
    test::expectInvalid(d.make(nullptr, five, 0, 0, 1), "OutputTensor.DimensionCount", {"5"});
  }
  SUBCASE("the input has the output's DataType") {
    Tensor other(DML_TENSOR_DATA_TYPE_INT32, {4, 5});
    test::expectInvalid(d.make(&other, output, 0, 0, 1), "InputTensor.DataType", {"INT32", "FLOAT32"});
  }
  SUBCASE("the input has the output's DimensionCount") {
    Tensor other(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4, 5});
    test::expectInvalid(d.make(&other, output, 0, 0, 1), "InputTensor.DimensionCount", {"3"});
  }
  SUBCASE("the input has the output's Sizes") {
    Tensor other(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 6});
    test::expectInvalid(d.make(&other, output, 0, 0, 1), "InputTensor.Sizes[1]", {"5", "6"});
  }
  SUBCASE("ValueDataType is the output's DataType") {
    d.make(nullptr, output, 0, 0, 1);
    d.desc.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    test::expectInvalid(d.op, "ValueDataType", {"FLOAT16", "FLOAT32"});
  }
  SUBCASE("ValueDataType outside the enumeration is read as bits, not as the enum") {
    d.make(nullptr, output, 0, 0, 1);
    for (uint32_t bits : {99u, 0x80000000u}) {
      static_assert(sizeof(d.desc.ValueDataType) == sizeof bits, "enum size");
      std::memcpy(&d.desc.ValueDataType, &bits, sizeof bits);
      test::expectInvalid(d.op, "ValueDataType", {"UNKNOWN", std::to_string(bits)});
    }
  }
  SUBCASE("the output's descriptor is checked") {
    d.make(nullptr, output, 0, 0, 1);
    output.buffer.TotalTensorSizeInBytes = 16;
    test::expectInvalid(d.op, "OutputTensor.TotalTensorSizeInBytes", {"80"});
  }
}

TEST_CASE("diagonal_matrix1: an owned input's persistent copy whose size overflows 64 bits is rejected") {
  // Found by the descriptor fuzzer: accepted, then compileOperator failed.
  Tensor input(DML_TENSOR_DATA_TYPE_INT8, {1, 1}), output(DML_TENSOR_DATA_TYPE_INT8, {1, 1});
  Diagonal d;
  const DML_OPERATOR_DESC& op = d.make(&input, output, 0, 0, 1);
  input.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  input.buffer.TotalTensorSizeInBytes = ~uint64_t(0);
  test::expectInvalid(op, "InputTensor.TotalTensorSizeInBytes", {"DML_TENSOR_FLAG_OWNED_BY_DML", "overflows 64 bits"});
  input.buffer.Flags = DML_TENSOR_FLAG_NONE;  // not copied: nothing to overflow
  CHECK_FALSE(vkdml::validate(op).has_value());
}
