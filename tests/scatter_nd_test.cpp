// DML_SCATTER_ND: the page's example, the ONNX ScatterND case, random element
// and slice scatters over every type, index type and rank against a plain
// reference, negative and out-of-range (clamped) indices, in-place execution,
// the grid-stride loops and 64-bit offsets (the rules:
// scatter_nd_validation_test.cpp).
#include <algorithm>
#include <limits>
#include <numeric>

#include "json.hpp"
#include "scatter_nd.hpp"
#include "support.hpp"

using test::ScatterNd;
using test::Tensor;

namespace {

constexpr DML_TENSOR_DATA_TYPE kIndexTypes[] = {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32,
                                                DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT64};

bool isSigned(DML_TENSOR_DATA_TYPE indexType) {
  return indexType == DML_TENSOR_DATA_TYPE_INT32 || indexType == DML_TENSOR_DATA_TYPE_INT64;
}

// The spec's rule for one coordinate: negative (signed types) counts from the
// end, then clamp into [0, size - 1].
uint32_t resolve(DML_TENSOR_DATA_TYPE indexType, uint64_t bits, uint32_t size) {
  if (!isSigned(indexType)) return static_cast<uint32_t>(std::min<uint64_t>(bits, size - 1));
  int64_t v = indexType == DML_TENSOR_DATA_TYPE_INT32 ? int64_t(int32_t(uint32_t(bits))) : int64_t(bits);
  if (v < 0) v += size;
  return static_cast<uint32_t>(std::clamp<int64_t>(v, 0, int64_t(size) - 1));
}

// The reference: output = input; for each tuple j and slice element s,
// output[tuple j's coordinates, s's coordinates] = updates[j, s].
Tensor reference(const Tensor& input, const Tensor& indices, const Tensor& updates, uint32_t inputDims) {
  const size_t dc = input.sizes.size();
  Tensor expected(input.type, input.sizes);
  for (uint64_t i = 0; i < input.elementCount(); ++i) expected.set(i, input.get(i));
  const uint32_t k = indices.sizes[dc - 1];
  const uint64_t tuples = indices.elementCount() / k;
  const uint64_t slice = updates.elementCount() / tuples;
  for (uint64_t j = 0; j < tuples; ++j) {
    std::vector<uint32_t> c(dc, 0);
    for (uint32_t i = 0; i < k; ++i) {
      const size_t d = dc - inputDims + i;
      c[d] = resolve(indices.type, indices.get(j * k + i), input.sizes[d]);
    }
    for (uint64_t s = 0; s < slice; ++s) {
      uint64_t rest = s;
      for (size_t d = dc; d-- > dc - inputDims + k;) {
        c[d] = static_cast<uint32_t>(rest % input.sizes[d]);
        rest /= input.sizes[d];
      }
      expected.set(test::indexOf(c, input.sizes), updates.get(j * slice + s));
    }
  }
  return expected;
}

Tensor values(DML_TENSOR_DATA_TYPE type, std::vector<uint32_t> sizes, const std::vector<double>& v) {
  Tensor t(type, std::move(sizes));
  REQUIRE(v.size() == t.elementCount());
  for (size_t i = 0; i < v.size(); ++i) t.set(i, test::bitsOf(type, v[i]));
  return t;
}

Tensor indexTensor(DML_TENSOR_DATA_TYPE type, std::vector<uint32_t> sizes, const std::vector<int64_t>& v,
                   std::vector<uint32_t> strides = {}) {
  Tensor t(type, std::move(sizes), std::move(strides));
  REQUIRE(v.size() == t.elementCount());
  for (size_t i = 0; i < v.size(); ++i) t.set(i, test::bitsOfInteger(type, v[i]));
  return t;
}

vkdml::Buffer upload(const Tensor& t) {
  vkdml::Buffer b = test::device().createBuffer(t.bytes.size());
  b.upload(t.bytes.data(), t.bytes.size());
  return b;
}

// Runs the operator in place: one buffer is bound as the input and as the
// output at one address (their descriptors share a layout), each range
// `inputTail` or `outputTail` bytes longer than the tensor, with guards of
// 256 bytes before the tensor and after the longer range. Returns the
// tensor's bytes afterwards; the buffer's bytes around them, the indices
// and the updates must keep theirs.
std::vector<uint8_t> runInPlace(const DML_OPERATOR_DESC& op, const Tensor& data, const Tensor& indices,
                                const Tensor& updates, uint64_t inputTail = 0, uint64_t outputTail = 0) {
  constexpr uint64_t guard = 256;
  auto compiled = test::device().compileOperator(test::device().createOperator(op));
  const uint64_t bytes = data.bytes.size(), tail = std::max(inputTail, outputTail);
  std::vector<uint8_t> initial;
  for (uint64_t i = 0; i < guard; ++i) initial.push_back(uint8_t(0x5A ^ i));
  initial.insert(initial.end(), data.bytes.begin(), data.bytes.end());
  for (uint64_t i = 0; i < tail + guard; ++i) initial.push_back(uint8_t(0xA5 ^ i));
  vkdml::Buffer buffer = test::device().createBuffer(initial.size());
  buffer.upload(initial.data(), initial.size());
  vkdml::Buffer indexBuffer = upload(indices), updateBuffer = upload(updates);
  auto table = compiled.createBindingTable();
  table.bindInputs({{&buffer, guard, bytes + inputTail},
                    {&indexBuffer, 0, indexBuffer.size()},
                    {&updateBuffer, 0, updateBuffer.size()}});
  table.bindOutputs({{&buffer, guard, bytes + outputTail}});
  test::device().execute(compiled, table);
  std::vector<uint8_t> result(initial.size());
  buffer.download(result.data(), result.size());
  const int64_t first = int64_t(guard), past = int64_t(guard + bytes);
  CHECK_MESSAGE(std::equal(result.begin(), result.begin() + first, initial.begin()), "the guard before changed");
  CHECK_MESSAGE(std::equal(result.begin() + past, result.end(), initial.begin() + past), "the bytes after changed");
  auto unchanged = [](const vkdml::Buffer& b, const Tensor& t) {
    std::vector<uint8_t> after(t.bytes.size());
    b.download(after.data(), after.size());
    return after == t.bytes;
  };
  CHECK_MESSAGE(unchanged(indexBuffer, indices), "the indices changed");
  CHECK_MESSAGE(unchanged(updateBuffer, updates), "the updates changed");
  return std::vector<uint8_t>(result.begin() + first, result.begin() + past);
}

// A random scatter of `rank` dimensions: random meaningful ranks, tuple
// length and sizes; targets are distinct (a prefix of a permutation of all
// tuples), and signed indices are randomly written as negative ones.
void randomScatter(std::mt19937_64& rng, DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE indexType, uint32_t rank,
                   bool strided) {
  const uint32_t inputDims = test::uniform(rng, 1, rank);
  const uint32_t k = test::uniform(rng, 1, inputDims);
  // The updates' shape, (indicesDims - 1) + (inputDims - k) dimensions, must fit in rank.
  const uint32_t indicesDims = test::uniform(rng, 1, std::min(rank, rank - (inputDims - k) + 1));
  CAPTURE(inputDims);
  CAPTURE(indicesDims);
  CAPTURE(k);

  std::vector<uint32_t> inSizes(rank, 1);
  std::vector<uint32_t> meaningful = test::randomSizes(rng, inputDims, 300);
  std::copy(meaningful.begin(), meaningful.end(), inSizes.end() - inputDims);
  uint64_t targets = 1;
  for (uint32_t i = 0; i < k; ++i) targets *= inSizes[rank - inputDims + i];

  // At most `targets` tuples, so that each can have its own target.
  std::vector<uint32_t> tupleShape;
  if (indicesDims > 1) tupleShape = test::randomSizes(rng, indicesDims - 1, targets);
  uint64_t tuples = 1;
  for (uint32_t s : tupleShape) tuples *= s;
  std::vector<uint32_t> idxSizes(rank, 1);
  std::copy(tupleShape.begin(), tupleShape.end(), idxSizes.end() - indicesDims);
  idxSizes[rank - 1] = k;

  std::vector<uint32_t> updSizes(rank, 1);
  std::vector<uint32_t> upd = tupleShape;
  upd.insert(upd.end(), inSizes.end() - (inputDims - k), inSizes.end());
  std::copy(upd.begin(), upd.end(), updSizes.end() - upd.size());

  auto strides = [&](const std::vector<uint32_t>& sizes, bool broadcast) {
    return strided && test::uniform(rng, 0, 1) ? test::randomStrides(rng, sizes, broadcast) : std::vector<uint32_t>{};
  };
  Tensor input(type, inSizes, strides(inSizes, true));
  Tensor indices(indexType, idxSizes, strides(idxSizes, false));
  Tensor updates(type, updSizes, strides(updSizes, true));
  Tensor output(type, inSizes, strided ? test::randomStrides(rng, inSizes, false) : std::vector<uint32_t>{});
  input.randomize(rng);
  indices.randomize(rng);  // the gaps between strided indices hold garbage
  updates.randomize(rng);
  output.randomize(rng);

  std::vector<uint64_t> order(targets);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (uint64_t j = 0; j < tuples; ++j) {
    uint64_t target = order[j];
    for (uint32_t i = k; i-- > 0;) {
      const uint32_t size = inSizes[rank - inputDims + i];
      int64_t c = static_cast<int64_t>(target % size);
      target /= size;
      if (isSigned(indexType) && test::uniform(rng, 0, 1)) c -= size;  // the same element, from the end
      indices.set(j * k + i, test::bitsOfInteger(indexType, c));
    }
  }
  test::randomAlignment(rng, {&input, &indices, &updates, &output});
  ScatterNd s;
  test::run(s.make(input, indices, updates, output, inputDims, indicesDims), {&input, &indices, &updates}, {&output});
  test::expectSameElements(output, reference(input, indices, updates, inputDims));
}

// A random scatter of every type, index type and rank, from `seed`.
void randomScatters(uint64_t seed, bool strided) {
  std::mt19937_64 rng(seed);
  for (auto type : test::allTypes())
    for (auto indexType : kIndexTypes)
      for (uint32_t rank = 1; rank <= 8; ++rank) {
        CAPTURE(std::string(vkdml::toString(type)));
        CAPTURE(std::string(vkdml::toString(indexType)));
        CAPTURE(rank);
        randomScatter(rng, type, indexType, rank, strided);
      }
}

}  // namespace

TEST_CASE("scatter_nd: worked example from the DirectML page, every index type") {
  for (auto indexType : kIndexTypes) {
    CAPTURE(std::string(vkdml::toString(indexType)));
    // The page's {8} input and {4} updates, padded to the indices' DimensionCount 2.
    Tensor input = values(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 8}, {1, 2, 3, 4, 5, 6, 7, 8});
    Tensor indices = indexTensor(indexType, {4, 1}, {4, 3, 1, 7});
    Tensor updates = values(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4}, {9, 10, 11, 12});
    Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 8});
    ScatterNd s;
    test::run(s.make(input, indices, updates, output, 1, 2), {&input, &indices, &updates}, {&output});
    test::expectSameElements(output, values(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 8}, {1, 11, 3, 10, 9, 6, 7, 12}));
  }
}

TEST_CASE("scatter_nd: ONNX conformance cases") {
  test::forEachConformanceCase("SCATTER_ND", 1, [](const test::Json& c) {
    Tensor input = test::tensorFromJson(c["inputs"]["InputTensor"]);
    Tensor indices = test::tensorFromJson(c["inputs"]["IndicesTensor"]);
    Tensor updates = test::tensorFromJson(c["inputs"]["UpdatesTensor"]);
    Tensor expected = test::tensorFromJson(c["output"]);
    // ONNX shapes: pad all four with leading 1s to one DimensionCount.
    const size_t dc = std::max({input.sizes.size(), indices.sizes.size(), updates.sizes.size()});
    for (Tensor* t : {&input, &indices, &updates, &expected})
      t->sizes.insert(t->sizes.begin(), dc - t->sizes.size(), 1);
    Tensor output(expected.type, expected.sizes);
    ScatterNd s;
    test::run(s.make(input, indices, updates, output, uint32_t(c["params"]["InputDimensionCount"].asUint()),
                     uint32_t(c["params"]["IndicesDimensionCount"].asUint())),
              {&input, &indices, &updates}, {&output});
    test::expectSameElements(output, expected);
  });
}

TEST_CASE("scatter_nd: random element and slice scatters, every type, index type and rank, packed") {
  randomScatters(109, false);
}

TEST_CASE("scatter_nd: random scatters with strided and broadcast tensors") {
  randomScatters(110, true);
}

TEST_CASE("scatter_nd: negative indices count from the end of their dimension") {
  for (auto indexType : {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64}) {
    CAPTURE(std::string(vkdml::toString(indexType)));
    Tensor input = values(DML_TENSOR_DATA_TYPE_INT16, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    Tensor indices = indexTensor(indexType, {3, 2}, {-1, -1, -3, 1, 1, -4});  // (2,3), (0,1), (1,0)
    Tensor updates = values(DML_TENSOR_DATA_TYPE_INT16, {1, 3}, {-5, -6, -7});
    Tensor output(DML_TENSOR_DATA_TYPE_INT16, {3, 4});
    ScatterNd s;
    test::run(s.make(input, indices, updates, output, 2, 2), {&input, &indices, &updates}, {&output});
    test::expectSameElements(output,
                             values(DML_TENSOR_DATA_TYPE_INT16, {3, 4}, {0, -6, 2, 3, -7, 5, 6, 7, 8, 9, 10, -5}));
  }
}

TEST_CASE("scatter_nd: out-of-range indices are clamped per coordinate, never written outside the tensors") {
  // A 4x5 output with 2-coordinate tuples; each tuple lands on a distinct element.
  struct Case {
    DML_TENSOR_DATA_TYPE type;
    std::vector<int64_t> indices;  // (row, column) pairs, written as this type's bits
    std::vector<double> expected;
  };
  const int64_t i32min = std::numeric_limits<int32_t>::min(), i32max = std::numeric_limits<int32_t>::max();
  const int64_t i64min = std::numeric_limits<int64_t>::min(), i64max = std::numeric_limits<int64_t>::max();
  // Signed: -5 wraps to -1 in a dimension of 4 and clamps to 0; INT_MIN clamps to 0; 9 and INT_MAX to the last.
  const std::vector<int64_t> signed32 = {-5, 2, 9, 2, i32min, i32max, 1, -6, 2, i32min};
  const std::vector<int64_t> signed64 = {-5, 2, 9, 2, i64min, i64max, 1, -6, 2, i64min};
  // Unsigned: all-ones is huge, not -1: it clamps to the last element.
  const std::vector<int64_t> unsigned32 = {0, 7, 9, 2, 0xFFFFFFFFll, 0, 1, 0x80000000ll, 2, 1};
  const std::vector<int64_t> unsigned64 = {0, 7, 9, 2, -1, 0, 1, i64min, 2, 1};
  // Signed targets: (0,2) (3,2) (0,4) (1,0) (2,0); unsigned: (0,4) (3,2) (3,0) (1,4) (2,1).
  //                                         row 0          row 1          row 2          row 3
  const std::vector<double> expectSigned = {0, 0, 1, 0, 3, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 2, 0, 0};
  const std::vector<double> expectUnsigned = {0, 0, 0, 0, 1, 0, 0, 0, 0, 4, 0, 5, 0, 0, 0, 3, 0, 2, 0, 0};
  for (const Case& c : {Case{DML_TENSOR_DATA_TYPE_INT32, signed32, expectSigned},
                        Case{DML_TENSOR_DATA_TYPE_INT64, signed64, expectSigned},
                        Case{DML_TENSOR_DATA_TYPE_UINT32, unsigned32, expectUnsigned},
                        Case{DML_TENSOR_DATA_TYPE_UINT64, unsigned64, expectUnsigned}}) {
    CAPTURE(std::string(vkdml::toString(c.type)));
    Tensor input(DML_TENSOR_DATA_TYPE_FLOAT64, {4, 5});
    Tensor indices = indexTensor(c.type, {5, 2}, c.indices);
    Tensor updates = values(DML_TENSOR_DATA_TYPE_FLOAT64, {1, 5}, {1, 2, 3, 4, 5});
    Tensor output(DML_TENSOR_DATA_TYPE_FLOAT64, {4, 5});
    ScatterNd s;
    test::run(s.make(input, indices, updates, output, 2, 2), {&input, &indices, &updates}, {&output});
    Tensor expected = values(DML_TENSOR_DATA_TYPE_FLOAT64, {4, 5}, c.expected);
    test::expectSameElements(output, expected);
    test::expectSameElements(reference(input, indices, updates, 2), expected);  // the reference agrees
  }
  // Slices too: a row index past the end writes the last row, strided.
  Tensor input = values(DML_TENSOR_DATA_TYPE_UINT8, {3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor indices = indexTensor(DML_TENSOR_DATA_TYPE_INT32, {1, 1}, {1000}, {5, 3});
  Tensor updates(DML_TENSOR_DATA_TYPE_UINT8, {1, 2}, {0, 3});
  updates.set(0, 8);
  updates.set(1, 9);
  Tensor output(DML_TENSOR_DATA_TYPE_UINT8, {3, 2}, {4, 1});
  ScatterNd s;
  test::run(s.make(input, indices, updates, output, 2, 2), {&input, &indices, &updates}, {&output});
  test::expectSameElements(output, values(DML_TENSOR_DATA_TYPE_UINT8, {3, 2}, {1, 2, 3, 4, 8, 9}));
}

TEST_CASE("scatter_nd: in place, the output bound at the input's address") {
  std::mt19937_64 rng(7);
  // Packed, and strided with gaps: the same layout for input and output. The
  // ranges' lengths need not match: the tensor's bytes are the same.
  const std::pair<uint64_t, uint64_t> tails[] = {{0, 0}, {0, 24}, {40, 0}};
  for (bool strided : {false, true})
    for (const auto& [inputTail, outputTail] : tails) {
      CAPTURE(strided);
      CAPTURE(inputTail);
      CAPTURE(outputTail);
      const std::vector<uint32_t> sizes = {6, 5, 7};
      Tensor input(DML_TENSOR_DATA_TYPE_FLOAT16, sizes,
                   strided ? std::vector<uint32_t>{80, 14, 2} : std::vector<uint32_t>{});
      input.randomize(rng);
      Tensor indices = indexTensor(DML_TENSOR_DATA_TYPE_INT64, {1, 3, 2}, {5, 0, -6, 4, 2, 2});  // rows of 7
      Tensor updates(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 3, 7});
      updates.randomize(rng);
      Tensor output(DML_TENSOR_DATA_TYPE_FLOAT16, sizes, input.strides);
      ScatterNd s;
      Tensor result = input;
      result.bytes =
          runInPlace(s.make(input, indices, updates, output, 3, 3), input, indices, updates, inputTail, outputTail);
      test::expectSameElements(result, reference(input, indices, updates, 3));
      // The gaps between strided elements keep their bytes.
      Tensor gaps = input;
      for (uint64_t i = 0; i < gaps.elementCount(); ++i) gaps.set(i, result.get(i));
      CHECK(gaps.bytes == result.bytes);
    }
}

TEST_CASE("scatter_nd: grid-stride loops over tuples and along slices") {
  // 32800 tuples of 257 UINT8: more tuples than the grid has rows and longer
  // slices than its rows are wide (runtime: rowGrid's 32768 groups of 256).
  // In place, so the copy is skipped, with a byte-wise reference: lavapipe is slow.
  const uint32_t rows = 32800, width = 257;
  std::mt19937_64 rng(3);
  Tensor data(DML_TENSOR_DATA_TYPE_UINT8, {rows, width});
  Tensor indices(DML_TENSOR_DATA_TYPE_UINT32, {rows, 1});
  Tensor updates(DML_TENSOR_DATA_TYPE_UINT8, {rows, width});
  data.randomize(rng);
  updates.randomize(rng);
  std::vector<uint32_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<uint8_t> expected = data.bytes;
  for (uint32_t j = 0; j < rows; ++j) {
    indices.set(j, order[j]);
    std::memcpy(expected.data() + uint64_t(order[j]) * width, updates.bytes.data() + uint64_t(j) * width, width);
  }
  Tensor output(DML_TENSOR_DATA_TYPE_UINT8, {rows, width});
  ScatterNd s;
  std::vector<uint8_t> result = runInPlace(s.make(data, indices, updates, output, 2, 2), data, indices, updates);
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < expected.size(); ++i) wrong += result[i] != expected[i];
  CHECK(wrong == 0);
}

// Index tuples for `targets` (row-major over `sizes`), each coordinate written
// as the same element from the end (signed types) or past the end where it
// is the last one (clamped back to it), at random.
// The tensor has `rank` dimensions: 1s, then {tuples, k}.
Tensor targetIndices(std::mt19937_64& rng, DML_TENSOR_DATA_TYPE type, uint32_t rank, const std::vector<uint32_t>& sizes,
                     const std::vector<uint64_t>& targets) {
  const uint32_t k = static_cast<uint32_t>(sizes.size());
  std::vector<int64_t> v;
  for (uint64_t target : targets) {
    std::vector<int64_t> tuple(k);
    for (uint32_t i = k; i-- > 0;) {
      int64_t c = static_cast<int64_t>(target % sizes[i]);
      target /= sizes[i];
      if (isSigned(type) && test::uniform(rng, 0, 2) == 0) c -= sizes[i];
      if (c == int64_t(sizes[i]) - 1 && test::uniform(rng, 0, 2) == 0) c += test::uniform(rng, 1, 1000);
      tuple[i] = c;
    }
    v.insert(v.end(), tuple.begin(), tuple.end());
  }
  std::vector<uint32_t> shape(rank, 1);
  shape[rank - 2] = static_cast<uint32_t>(targets.size());
  shape[rank - 1] = k;
  return indexTensor(type, shape, v);
}

TEST_CASE("scatter_nd: long slices: the copy skips those the updates overwrite") {
  // Slices of 64 bytes and more take three dispatches (mark the targets, copy
  // the rest, write the updates); shorter ones two. Every type, packed and
  // strided, with targets written negative or past the end, and targets hit
  // twice (by equal slices, so that the result does not depend on order).
  // Through the copy kernel (a CPU device's transfer copies every slice).
  test::KernelCopies kernelCopies;
  std::mt19937_64 rng(64);
  for (auto type : test::allTypes())
    for (bool strided : {false, true})
      for (bool longSlices : {true, false}) {
        CAPTURE(std::string(vkdml::toString(type)));
        CAPTURE(strided);
        CAPTURE(longSlices);
        const uint32_t elementSize = vkdmlElementSizeInBytes(type);
        const uint32_t width = longSlices ? 64 / elementSize + test::uniform(rng, 0, 5) : 64 / elementSize - 1;
        const std::vector<uint32_t> sizes = {test::uniform(rng, 2, 9), test::uniform(rng, 1, 7), width};
        const uint32_t targetCount = sizes[0] * sizes[1];
        std::vector<uint64_t> targets;
        for (uint32_t j = 0, n = test::uniform(rng, 1, targetCount); j < n; ++j)
          targets.push_back(test::uniform(rng, 0, targetCount - 1));  // repeats likely
        const uint32_t tuples = static_cast<uint32_t>(targets.size());
        auto strides = [&](const std::vector<uint32_t>& s, bool broadcast) {
          return strided ? test::randomStrides(rng, s, broadcast) : std::vector<uint32_t>{};
        };
        Tensor input(type, sizes, strides(sizes, true));
        Tensor updates(type, {1, tuples, width}, strides({1, tuples, width}, false));
        Tensor output(type, sizes, strides(sizes, false));
        input.randomize(rng);
        updates.randomize(rng);
        output.randomize(rng);
        for (uint32_t j = 0; j < tuples; ++j)  // a repeated target gets the slice of its first tuple
          for (uint32_t i = 0; i < j; ++i)
            if (targets[i] == targets[j]) {
              for (uint32_t x = 0; x < width; ++x)
                updates.set(uint64_t(j) * width + x, updates.get(uint64_t(i) * width + x));
              break;
            }
        Tensor indices = targetIndices(rng, DML_TENSOR_DATA_TYPE_INT32, 3, {sizes[0], sizes[1]}, targets);
        ScatterNd s;
        const DML_OPERATOR_DESC& op = s.make(input, indices, updates, output, 3, 3);
        auto kernels =
            test::device().compileOperator(test::device().createOperator(op), test::compileOptions()).kernelNames();
        // With long slices: the mask's zero fill, then mark, copy and
        // scatter; with short ones, the copy and the scatter alone.
        REQUIRE(kernels.size() == (longSlices ? 4u : 2u));
        if (longSlices) {
          CHECK(kernels.front() == "fill");
          CHECK(kernels[1].rfind("scatter_nd", 0) == 0);
        }
        CHECK(kernels[kernels.size() - 2].rfind("copy", 0) == 0);
        CHECK(kernels.back().rfind("scatter_nd", 0) == 0);
        test::run(op, {&input, &indices, &updates}, {&output});
        test::expectSameElements(output, reference(input, indices, updates, 3));
      }
}

TEST_CASE("scatter_nd: long slices: each execution starts from a clear mask") {
  // The same binding table runs twice with different targets, the output
  // overwritten with garbage in between: slices marked only the first time
  // must be copied the second time (the scatter clears its marks).
  test::KernelCopies kernelCopies;
  std::mt19937_64 rng(65);
  const uint32_t rows = 40, width = 24;  // 96-byte slices
  Tensor input(DML_TENSOR_DATA_TYPE_FLOAT32, {rows, width});
  Tensor updates(DML_TENSOR_DATA_TYPE_FLOAT32, {12, width});
  input.randomize(rng);
  updates.randomize(rng);
  Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {rows, width});
  Tensor indices = targetIndices(rng, DML_TENSOR_DATA_TYPE_INT64, 2, {rows}, std::vector<uint64_t>(12, 0));
  ScatterNd s;
  auto compiled = test::device().compileOperator(
      test::device().createOperator(s.make(input, indices, updates, output, 2, 2)), test::compileOptions());
  REQUIRE(compiled.kernelNames().size() == 4);  // the mask's zero fill, mark, copy, scatter
  CHECK(compiled.kernelNames().front() == "fill");
  vkdml::Buffer in = upload(input), upd = upload(updates), idx = upload(indices);
  vkdml::Buffer out = test::device().createBuffer(output.bytes.size());
  auto table = compiled.createBindingTable();
  table.bindInputs({{&in, 0, in.size()}, {&idx, 0, idx.size()}, {&upd, 0, upd.size()}});
  table.bindOutputs({{&out, 0, out.size()}});
  for (uint32_t run = 0; run < 3; ++run) {  // the first half of the rows, then the second, twice
    CAPTURE(run);
    std::vector<uint64_t> targets(12);
    for (uint64_t& t : targets)
      t = run == 0 ? test::uniform(rng, 0, rows / 2 - 1) : test::uniform(rng, rows / 2, rows - 1);
    indices = targetIndices(rng, DML_TENSOR_DATA_TYPE_INT64, 2, {rows}, targets);
    idx.upload(indices.bytes.data(), indices.bytes.size());
    // A repeated target gets its first tuple's slice: the result does not depend on order.
    Tensor equalUpdates = updates;
    for (uint32_t j = 0; j < 12; ++j)
      for (uint32_t i = 0; i < j; ++i)
        if (targets[i] == targets[j]) {
          for (uint32_t x = 0; x < width; ++x)
            equalUpdates.set(uint64_t(j) * width + x, updates.get(uint64_t(i) * width + x));
          break;
        }
    upd.upload(equalUpdates.bytes.data(), equalUpdates.bytes.size());
    out.fill(0xFFFFFFFFu, out.size());
    test::device().execute(compiled, table);
    out.download(output.bytes.data(), output.bytes.size());
    test::expectSameElements(output, reference(input, indices, equalUpdates, 2));
  }
}

TEST_CASE("scatter_nd: offsets past 2^32 elements") {
  // A UINT8 output whose stride puts its last row 2^32 + 1 bytes in: the
  // kernels take their 64-bit offset variants.
  const uint32_t stride = 1u << 31;
  const uint64_t bytes = ((uint64_t(2) * stride + 4) + 3) & ~uint64_t(3);
  const auto& info = test::device().info();
  if (info.maxMemoryAllocationSize < bytes) {
    MESSAGE("skipped: " << info.name << " allocates at most " << info.maxMemoryAllocationSize << " bytes at once");
    return;
  }
  Tensor input = values(DML_TENSOR_DATA_TYPE_UINT8, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor indices = indexTensor(DML_TENSOR_DATA_TYPE_UINT64, {2, 1}, {2, 0});
  Tensor updates = values(DML_TENSOR_DATA_TYPE_UINT8, {2, 4}, {21, 22, 23, 24, 25, 26, 27, 28});
  UINT sizes[2] = {3, 4}, strides[2] = {stride, 1};
  DML_BUFFER_TENSOR_DESC outBuffer{DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_FLAG_NONE, 2, sizes, strides, bytes, 0};
  DML_TENSOR_DESC outDesc{DML_TENSOR_TYPE_BUFFER, &outBuffer};
  DML_SCATTER_ND_OPERATOR_DESC desc{input.desc(), indices.desc(), updates.desc(), &outDesc, 2, 2};
  auto compiled = test::device().compileOperator(test::device().createOperator({DML_OPERATOR_SCATTER_ND, &desc}));
  vkdml::Buffer in = upload(input), idx = upload(indices), upd = upload(updates);
  vkdml::Buffer out = test::device().createBuffer(bytes);
  auto table = compiled.createBindingTable();
  table.bindInputs({{&in, 0, in.size()}, {&idx, 0, idx.size()}, {&upd, 0, upd.size()}});
  table.bindOutputs({{&out, 0, bytes}});
  test::device().execute(compiled, table);
  const uint8_t expected[3][4] = {{25, 26, 27, 28}, {5, 6, 7, 8}, {21, 22, 23, 24}};
  for (uint32_t r = 0; r < 3; ++r) {
    uint8_t row[4];
    out.download(row, 4, uint64_t(r) * stride);
    for (uint32_t x = 0; x < 4; ++x) {
      CAPTURE(r);
      CAPTURE(x);
      CHECK(row[x] == expected[r][x]);
    }
  }
}
