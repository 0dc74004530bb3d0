// DML_SLICE1: the page's examples, the ONNX Slice cases, random windows over
// every type and rank against a plain reference, and every validation rule.
#include <algorithm>
#include <numeric>

#include "json.hpp"
#include "support.hpp"

using test::Tensor;

namespace {

struct Slice1 {
  std::vector<uint32_t> offsets, sizes;
  std::vector<int32_t> strides;
  DML_SLICE1_OPERATOR_DESC desc{};
  DML_OPERATOR_DESC op{};

  const DML_OPERATOR_DESC& make(Tensor& input, Tensor& output) {
    desc = {input.desc(),   output.desc(), static_cast<UINT>(offsets.size()),
            offsets.data(), sizes.data(),  strides.data()};
    op = {DML_OPERATOR_SLICE1, &desc};
    return op;
  }
};

// The reference: Output[o] = Input[start + InputWindowStrides * o] per dimension.
Tensor reference(const Slice1& s, const Tensor& input, const Tensor& output) {
  Tensor expected(output.type, output.sizes);
  for (uint64_t i = 0; i < expected.elementCount(); ++i) {
    std::vector<uint32_t> o = test::coordinatesOf(i, output.sizes);
    std::vector<uint32_t> in(o.size());
    for (size_t d = 0; d < o.size(); ++d) {
      int64_t start = s.offsets[d] + (s.strides[d] < 0 ? s.sizes[d] - 1 : 0);
      in[d] = static_cast<uint32_t>(start + int64_t(s.strides[d]) * o[d]);
    }
    expected.set(i, input.get(test::indexOf(in, input.sizes)));
  }
  return expected;
}

Tensor iota(DML_TENSOR_DATA_TYPE type, std::vector<uint32_t> sizes) {
  Tensor t(type, std::move(sizes));
  for (uint64_t i = 0; i < t.elementCount(); ++i) t.set(i, test::bitsOf(type, double(i + 1)));
  return t;
}

// Whether validating a slice into an output of `sizes` at `strides` agrees
// with listing every offset; counts the outcome in `refused` or `accepted`.
void checkOverlapAgainstListing(const std::vector<uint32_t>& sizes, const std::vector<uint32_t>& strides, int& accepted,
                                int& refused) {
  Tensor packed(DML_TENSOR_DATA_TYPE_UINT8, sizes);
  Tensor laid(DML_TENSOR_DATA_TYPE_UINT8, sizes, strides);
  std::vector<uint64_t> offsets;
  for (uint64_t i = 0; i < laid.elementCount(); ++i) offsets.push_back(laid.offsetOf(i));
  std::sort(offsets.begin(), offsets.end());
  const bool overlaps = std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
  Slice1 all{std::vector<uint32_t>(sizes.size(), 0), sizes, std::vector<int32_t>(sizes.size(), 1)};
  const std::optional<vkdml::Error> error = vkdml::validate(all.make(packed, laid));
  std::string layout;
  for (size_t d = 0; d < sizes.size(); ++d) layout += " " + std::to_string(sizes[d]) + "@" + std::to_string(strides[d]);
  INFO("size@stride:" << layout);
  CHECK(error.has_value() == overlaps);
  (overlaps ? refused : accepted) += 1;
}

}  // namespace

TEST_CASE("slice1: worked examples from the DirectML page") {
  Tensor input = iota(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 4, 4});
  Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 2});
  Slice1 s{{0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, 2, 2}};
  test::run(s.make(input, output), {&input}, {&output});
  Tensor expected = iota(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 2, 2});
  for (auto [i, v] : {std::pair{0, 2.0}, {1, 4.0}, {2, 10.0}, {3, 12.0}})
    expected.set(i, test::bitsOf(DML_TENSOR_DATA_TYPE_FLOAT32, v));
  test::expectSameElements(output, expected);

  s.strides = {1, 1, -2, 2};
  test::run(s.make(input, output), {&input}, {&output});
  for (auto [i, v] : {std::pair{0, 14.0}, {1, 16.0}, {2, 6.0}, {3, 8.0}})
    expected.set(i, test::bitsOf(DML_TENSOR_DATA_TYPE_FLOAT32, v));
  test::expectSameElements(output, expected);
}

TEST_CASE("slice1: ONNX conformance cases") {
  test::forEachConformanceCase("SLICE1", 7, [](const test::Json& c) {
    Tensor input = test::tensorFromJson(c["inputs"]["InputTensor"]);
    Tensor expected = test::tensorFromJson(c["output"]);
    Tensor output(expected.type, expected.sizes);
    Slice1 s;
    for (const auto& v : c["params"]["InputWindowOffsets"].items) s.offsets.push_back(uint32_t(v.asUint()));
    for (const auto& v : c["params"]["InputWindowSizes"].items) s.sizes.push_back(uint32_t(v.asUint()));
    for (const auto& v : c["params"]["InputWindowStrides"].items) s.strides.push_back(int32_t(v.asInt()));
    test::run(s.make(input, output), {&input}, {&output});
    test::expectSameElements(output, expected);
  });
}

TEST_CASE("slice1: random windows, negative strides and strided tensors, every type and rank") {
  std::mt19937_64 rng(111);
  for (auto type : test::allTypes()) {
    for (uint32_t rank = 1; rank <= 8; ++rank) {
      for (int trial = 0; trial < 3; ++trial) {
        CAPTURE(vkdml::toString(type));
        CAPTURE(rank);
        CAPTURE(trial);
        std::vector<uint32_t> inSizes = test::randomSizes(rng, rank, 3000);
        Slice1 s;
        std::vector<uint32_t> outSizes;
        for (uint32_t d = 0; d < rank; ++d) {
          uint32_t window = test::uniform(rng, 1, inSizes[d]);
          s.offsets.push_back(test::uniform(rng, 0, inSizes[d] - window));
          s.sizes.push_back(window);
          int32_t stride = static_cast<int32_t>(test::uniform(rng, 1, 3));
          s.strides.push_back(test::uniform(rng, 0, 2) == 0 ? -stride : stride);
          uint32_t maxOut = 1 + (window - 1) / static_cast<uint32_t>(std::abs(s.strides.back()));
          outSizes.push_back(test::uniform(rng, 1, maxOut));  // smaller outputs are allowed too
        }
        bool stridedIn = trial > 0, stridedOut = trial == 2;
        Tensor input(type, inSizes, stridedIn ? test::randomStrides(rng, inSizes, true) : std::vector<uint32_t>{});
        Tensor output(type, outSizes, stridedOut ? test::randomStrides(rng, outSizes, false) : std::vector<uint32_t>{});
        input.randomize(rng);
        output.randomize(rng);  // the gaps between strided elements must survive
        test::randomAlignment(rng, {&input, &output});
        test::run(s.make(input, output), {&input}, {&output});
        test::expectSameElements(output, reference(s, input, output));
      }
    }
  }
}

TEST_CASE("slice1: an output interleaved without overlap") {
  // {3, 2} of strides {2, 3}: offsets 0, 3, 2, 5, 4, 7, which no stride
  // order separates; the gaps (offsets 1 and 6) must survive.
  std::mt19937_64 rng(112);
  Slice1 s{{1, 0}, {3, 2}, {1, 1}};
  Tensor input(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 2}), output(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 2}, {2, 3});
  input.randomize(rng);
  output.randomize(rng);
  test::run(s.make(input, output), {&input}, {&output});
  test::expectSameElements(output, reference(s, input, output));
}

TEST_CASE("slice1: a tensor larger than the device's maxStorageBufferRange") {
  // 160 MiB of UINT32: beyond lavapipe's 128 MiB storage-buffer range, so the
  // window at the end is reachable only through device addresses.
  const uint32_t count = 40u << 20;
  Tensor input(DML_TENSOR_DATA_TYPE_UINT32, {count});
  for (uint64_t i = 0; i < count; ++i) input.set(i, i * 2654435761u);
  Tensor output(DML_TENSOR_DATA_TYPE_UINT32, {4096});
  Slice1 s{{count - 3 * 4096}, {3 * 4096}, {-3}};
  test::run(s.make(input, output), {&input}, {&output});
  test::expectSameElements(output, reference(s, input, output));
}

TEST_CASE("slice1: byte offsets past 4 GiB") {
  // 1.25 G FLOAT32 elements (5 GiB); the window lies in the last MiB.
  const uint32_t count = 1280u << 20;
  const uint64_t bytes = uint64_t(count) * 4;
  vkdml::Buffer in;
  try {
    in = test::device().createBuffer(bytes);
  } catch (const vkdml::Error& e) {
    REQUIRE(e.code() == vkdml::ErrorCode::OutOfMemory);
    MESSAGE("skipped: " << test::device().info().name << " cannot allocate " << bytes
                        << " bytes: " << std::string(e.what()));
    return;
  }
  vkdml::Buffer out = test::device().createBuffer(1 << 20);
  in.fill(0xDEADBEEF, bytes);
  std::vector<uint32_t> tail(1 << 18);
  for (uint32_t i = 0; i < tail.size(); ++i) tail[i] = i * 7 + 1;
  in.upload(tail.data(), tail.size() * 4, bytes - tail.size() * 4);
  UINT inSizes[1] = {count}, outSizes[1] = {1 << 17};
  DML_BUFFER_TENSOR_DESC inBuffer{DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, inSizes, nullptr, bytes, 0};
  DML_BUFFER_TENSOR_DESC outBuffer{
      DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 1, outSizes, nullptr, uint64_t(outSizes[0]) * 4, 0};
  DML_TENSOR_DESC inDesc{DML_TENSOR_TYPE_BUFFER, &inBuffer}, outDesc{DML_TENSOR_TYPE_BUFFER, &outBuffer};
  UINT offsets[1] = {count - (1u << 18)}, sizes[1] = {1u << 18};
  INT strides[1] = {2};
  DML_SLICE1_OPERATOR_DESC desc{&inDesc, &outDesc, 1, offsets, sizes, strides};
  auto compiled = test::device().compileOperator(test::device().createOperator({DML_OPERATOR_SLICE1, &desc}));
  auto table = compiled.createBindingTable();
  table.bindInputs({{&in, 0, bytes}});
  table.bindOutputs({{&out, 0, outBuffer.TotalTensorSizeInBytes}});
  test::device().execute(compiled, table);
  std::vector<uint32_t> result(outSizes[0]);
  out.download(result.data(), result.size() * 4);
  uint64_t wrong = 0;
  for (uint32_t i = 0; i < result.size(); ++i) wrong += result[i] != tail[2 * i];
  CHECK(wrong == 0);
}

TEST_CASE("slice1: window steps times strides past 2^63 compile") {
  // Valid descriptors (their footprints stay below 2^64 bytes) where a step
  // times a stride, in bytes or times the outputs along it, passes 2^63:
  // planning the copy (merging dimensions, choosing 16-byte vectors) must not
  // overflow signed 64-bit arithmetic (undefined behaviour: ./dev.sh asan
  // reports it).
  struct Case {
    DML_TENSOR_DATA_TYPE type;
    UINT sizes[2], strides[2], windows[2];
    INT steps[2];
  };
  const Case cases[] = {
      // Rows of 2 FLOAT64 (16 bytes) (2^28 + 1) * (2^32 - 1) elements apart: 2^63 + 2^35 - 2^31 - 8 bytes.
      {DML_TENSOR_DATA_TYPE_FLOAT64, {(1u << 28) + 2, 2}, {0xFFFFFFFF, 1}, {(1u << 28) + 2, 2}, {(1 << 28) + 1, 1}},
      // An inner step of (2^30 + 1) * (2^32 - 1) elements, times its 2 outputs.
      {DML_TENSOR_DATA_TYPE_UINT8, {2, 0x7FFFFFFF}, {1, 0xFFFFFFFF}, {2, 0x7FFFFFFF}, {1, (1 << 30) + 1}},
  };
  for (const Case& c : cases) {
    UINT outSizes[2] = {2, 2}, offsets[2] = {0, 0};
    DML_BUFFER_TENSOR_DESC in{c.type, DML_TENSOR_FLAG_NONE, 2, c.sizes, c.strides, 0, 0};
    in.TotalTensorSizeInBytes = vkdmlCalcBufferTensorSize(c.type, 2, c.sizes, c.strides);
    DML_BUFFER_TENSOR_DESC out{
        c.type, DML_TENSOR_FLAG_NONE, 2, outSizes, nullptr, vkdmlCalcBufferTensorSize(c.type, 2, outSizes, nullptr), 0};
    DML_TENSOR_DESC inDesc{DML_TENSOR_TYPE_BUFFER, &in}, outDesc{DML_TENSOR_TYPE_BUFFER, &out};
    DML_SLICE1_OPERATOR_DESC desc{&inDesc, &outDesc, 2, offsets, c.windows, c.steps};
    CHECK_NOTHROW(test::device().compileOperator(test::device().createOperator({DML_OPERATOR_SLICE1, &desc})));
  }
}

TEST_CASE("slice1: validation rules") {
  Tensor input(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 6});
  Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3});
  Slice1 s{{0, 0}, {4, 6}, {2, 2}};
  REQUIRE_FALSE(vkdml::validate(s.make(input, output)).has_value());

  SUBCASE("DimensionCount must equal the input's and output's") {
    Slice1 t{{0}, {4}, {2}};
    test::expectInvalid(t.make(input, output), "InputTensor.DimensionCount", {"1", "2"});
  }
  SUBCASE("DimensionCount 1..8") {
    Slice1 t{{}, {}, {}};
    test::expectInvalid(t.make(input, output), "DimensionCount", {"0"});
    Slice1 nine{std::vector<uint32_t>(9, 0), std::vector<uint32_t>(9, 1), std::vector<int32_t>(9, 1)};
    test::expectInvalid(nine.make(input, output), "DimensionCount", {"1..8", "9"});
  }
  SUBCASE("output DimensionCount equals DimensionCount") {
    Tensor out3(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 3});
    test::expectInvalid(s.make(input, out3), "OutputTensor.DimensionCount", {"3"});
  }
  SUBCASE("the data types match") {
    Tensor outInt(DML_TENSOR_DATA_TYPE_INT32, {2, 3});
    test::expectInvalid(s.make(input, outInt), "OutputTensor.DataType", {"INT32", "FLOAT32"});
  }
  SUBCASE("InputWindowSizes >= 1") {
    s.sizes = {0, 6};
    test::expectInvalid(s.make(input, output), "InputWindowSizes[0]");
  }
  SUBCASE("the window lies inside the input") {
    s.offsets = {0, 2};
    test::expectInvalid(s.make(input, output), "InputWindowSizes[1]", {"2 + 6 > 6"});
  }
  SUBCASE("InputWindowStrides != 0") {
    s.strides = {2, 0};
    test::expectInvalid(s.make(input, output), "InputWindowStrides[1]");
  }
  SUBCASE("output sizes fit the strided window") {
    Tensor big(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 3});
    test::expectInvalid(s.make(input, big), "OutputTensor.Sizes[0]", {"2", "3"});
  }
  SUBCASE("null window arrays") {
    s.make(input, output);
    s.desc.InputWindowStrides = nullptr;
    test::expectInvalid(s.op, "InputWindowStrides");
    s.make(input, output);
    s.desc.InputWindowOffsets = nullptr;
    test::expectInvalid(s.op, "InputWindowOffsets");
    s.make(input, output);
    s.desc.InputWindowSizes = nullptr;
    test::expectInvalid(s.op, "InputWindowSizes");
  }
}

TEST_CASE("slice1: the minimum TotalTensorSizeInBytes is exact for any sizes and strides, or an overflow") {
  // Against 128-bit arithmetic: accepted at the exact minimum (rounded up to
  // 4), rejected 4 bytes below it, and rejected as an overflow where it
  // passes 2^64 bytes.
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const uint32_t rank = test::uniform(rng, 1, 8);
    const DML_TENSOR_DATA_TYPE type = test::allTypes()[test::uniform(rng, 0, 10)];
    std::vector<uint32_t> sizes(rank, 1), strides(rank);
    uint64_t elements = 1;
    for (uint32_t d = 0; d < rank; ++d) {
      const uint32_t size =
          test::uniform(rng, 1, 3) == 1 ? test::uniform(rng, 1, 0xFFFFFFFFu) : test::uniform(rng, 1, 9);
      if (elements * size > 0xFFFFFFFFu) continue;
      sizes[d] = size;
      elements *= size;
      strides[d] = test::uniform(rng, 0, 1) ? static_cast<uint32_t>(rng()) : test::uniform(rng, 0, 9);
    }
    __extension__ typedef unsigned __int128 u128;
    u128 last = 0;
    for (uint32_t d = 0; d < rank; ++d) last += u128(sizes[d] - 1) * strides[d];
    const u128 bytes = ((last + 1) * vkdmlElementSizeInBytes(type) + 3) / 4 * 4;
    CAPTURE(trial);
    Tensor input(type, {1}), output(type, std::vector<uint32_t>(rank, 1));
    input.sizes = sizes;  // set after construction, which would allocate the footprint
    input.strides = strides;
    Slice1 s{std::vector<uint32_t>(rank, 0), std::vector<uint32_t>(rank, 1), std::vector<int32_t>(rank, 1)};
    s.make(input, output);
    if (bytes > UINT64_MAX) {
      input.buffer.TotalTensorSizeInBytes = UINT64_MAX;
      test::expectInvalid(s.op, "InputTensor.Strides", {"overflows 64 bits"});
      continue;
    }
    input.buffer.TotalTensorSizeInBytes = static_cast<uint64_t>(bytes);
    CHECK_FALSE(vkdml::validate(s.op).has_value());
    input.buffer.TotalTensorSizeInBytes = static_cast<uint64_t>(bytes) - 4;
    test::expectInvalid(s.op, "InputTensor.TotalTensorSizeInBytes");
  }
}

TEST_CASE("slice1: tensor descriptor rules") {
  Tensor input(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 6});
  Tensor output(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 6});
  Slice1 s{{0, 0}, {4, 6}, {1, 1}};

  SUBCASE("a null tensor") {
    s.make(input, output);
    s.desc.InputTensor = nullptr;
    test::expectInvalid(s.op, "InputTensor", {"null"});
  }
  SUBCASE("Type is BUFFER") {
    s.make(input, output);
    input.tensor.Type = DML_TENSOR_TYPE_INVALID;
    test::expectInvalid(s.op, "InputTensor.Type");
  }
  SUBCASE("DataType is known") {
    s.make(input, output);
    input.buffer.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    test::expectInvalid(s.op, "InputTensor.DataType");
    const uint32_t past = 12;  // one past the last type: written as its bits
    std::memcpy(&input.buffer.DataType, &past, sizeof past);
    test::expectInvalid(s.op, "InputTensor.DataType", {"12"});
  }
  SUBCASE("sizes >= 1") {
    s.make(input, output);
    input.sizes[1] = 0;
    test::expectInvalid(s.op, "InputTensor.Sizes[1]");
  }
  SUBCASE("at most 2^32 - 1 elements") {
    s.make(input, output);
    input.sizes = {65536, 65536};
    test::expectInvalid(s.op, "InputTensor.Sizes", {"2^32 - 1"});
  }
  SUBCASE("TotalTensorSizeInBytes covers the implied size") {
    s.make(input, output);
    input.buffer.TotalTensorSizeInBytes = 95;
    test::expectInvalid(s.op, "InputTensor.TotalTensorSizeInBytes", {"96", "95"});
  }
  SUBCASE("TotalTensorSizeInBytes covers strided tensors") {
    input.strides = {12, 2};
    input.desc();
    s.make(input, output);
    input.buffer.TotalTensorSizeInBytes = 96;  // needs (1 + 3*12 + 5*2) * 4 = 188 -> 188
    test::expectInvalid(s.op, "InputTensor.TotalTensorSizeInBytes", {"188"});
  }
  SUBCASE("a size in bytes past 2^64 is rejected, not wrapped") {
    // 1 + (2^30 - 1) * 2^31 + 2^31 - 1 = 2^61 elements of 8 bytes: 2^64
    // bytes, which vkdmlCalcBufferTensorSize wraps to 0.
    Tensor huge(DML_TENSOR_DATA_TYPE_UINT64, {1});
    huge.sizes = {1073741824, 2};
    huge.strides = {2147483648u, 2147483647u};
    Tensor one(DML_TENSOR_DATA_TYPE_UINT64, {1, 1});
    Slice1 window{{1073741823, 1}, {1, 1}, {1, 1}};
    window.make(huge, one);
    huge.buffer.TotalTensorSizeInBytes = 16;
    test::expectInvalid(window.op, "InputTensor.Strides", {"overflows 64 bits", "2147483648"});
  }
  SUBCASE("GuaranteedBaseOffsetAlignment is 0 or a power of two >= the element size") {
    input.alignment = 2;
    test::expectInvalid(s.make(input, output), "InputTensor.GuaranteedBaseOffsetAlignment", {"2"});
    input.alignment = 24;
    test::expectInvalid(s.make(input, output), "InputTensor.GuaranteedBaseOffsetAlignment", {"24"});
  }
  SUBCASE("unknown flags") {
    s.make(input, output);
    const uint32_t unknownFlag = 4;  // not a value of the enum: written as its bits
    static_assert(sizeof(DML_TENSOR_FLAGS) == sizeof unknownFlag, "enum size");
    std::memcpy(&input.buffer.Flags, &unknownFlag, sizeof unknownFlag);
    test::expectInvalid(s.op, "InputTensor.Flags");
  }
  SUBCASE("OWNED_BY_DML is for inputs") {
    s.make(input, output);
    output.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    test::expectInvalid(s.op, "OutputTensor.Flags", {"inputs"});
  }
  SUBCASE("an output's elements must not overlap") {
    Tensor broadcast(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 6}, {0, 1});
    test::expectInvalid(s.make(input, broadcast), "OutputTensor.Strides", {"overlap"});
    Tensor interleaved(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 6}, {3, 1});
    test::expectInvalid(s.make(input, interleaved), "OutputTensor.Strides", {"overlap"});
    // Interleaved without overlap (offsets 0, 3, 2, 5, 4, 7): listed, and allowed.
    Slice1 small{{0, 0}, {3, 2}, {1, 1}};
    Tensor smallInput(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 2});
    Tensor woven(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 2}, {2, 3});
    CHECK_FALSE(vkdml::validate(small.make(smallInput, woven)).has_value());
    // The same weave in 2^19 blocks, each 8 elements after the last (its 6
    // offsets span 0..7): the blocks lie apart, so only the weave is listed.
    Slice1 large{{0, 0, 0}, {1u << 19, 3, 2}, {1, 1, 1}};
    Tensor largeInput(DML_TENSOR_DATA_TYPE_FLOAT32, {1u << 19, 3, 2});
    Tensor wovenLarge(DML_TENSOR_DATA_TYPE_FLOAT32, {1u << 19, 3, 2}, {8, 2, 3});
    CHECK_FALSE(vkdml::validate(large.make(largeInput, wovenLarge)).has_value());
    // The same blocks over a weave that overlaps (offsets 0, 2, 2, 4, 4, 6): refused as overlapping.
    Tensor overlapsLarge(DML_TENSOR_DATA_TYPE_FLOAT32, {1u << 19, 3, 2}, {8, 2, 2});
    test::expectInvalid(large.make(largeInput, overlapsLarge), "OutputTensor.Strides", {"must not overlap ("});
    // A stride of 0 repeats an element however many there are.
    Slice1 line{{0}, {1u << 21}, {1}};
    Tensor lineInput(DML_TENSOR_DATA_TYPE_FLOAT32, {1u << 21});
    Tensor repeated(DML_TENSOR_DATA_TYPE_FLOAT32, {1u << 21}, {0});
    test::expectInvalid(line.make(lineInput, repeated), "OutputTensor.Strides", {"must not overlap ("});
    // Two interleaved dimensions are decided exactly, at any size: 1024 x
    // 1025 at strides 1025 and 1024 are apart (i * 1024 == j * 1025 first
    // holds at i = 1025, past the 1024 rows), at strides 1024 and 1023 they
    // overlap (1024 * 1023 == 1023 * 1024).
    Slice1 wide{{0, 0}, {1024, 1025}, {1, 1}};
    Tensor wideInput(DML_TENSOR_DATA_TYPE_FLOAT32, {1024, 1025});
    Tensor wovenWide(DML_TENSOR_DATA_TYPE_FLOAT32, {1024, 1025}, {1025, 1024});
    CHECK_FALSE(vkdml::validate(wide.make(wideInput, wovenWide)).has_value());
    Tensor overlapsWide(DML_TENSOR_DATA_TYPE_FLOAT32, {1024, 1025}, {1024, 1023});
    test::expectInvalid(wide.make(wideInput, overlapsWide), "OutputTensor.Strides", {"must not overlap ("});
    // An innermost pair at stride 1 (offsets 0, 1) below the others' common
    // divisor, 2: set aside, and the two left decided as above.
    Slice1 wider{{0, 0, 0}, {1024, 1025, 2}, {1, 1, 1}};
    Tensor widerInput(DML_TENSOR_DATA_TYPE_FLOAT32, {1024, 1025, 2});
    Tensor wovenWider(DML_TENSOR_DATA_TYPE_FLOAT32, {1024, 1025, 2}, {2050, 2048, 1});
    CHECK_FALSE(vkdml::validate(wider.make(widerInput, wovenWider)).has_value());
    Tensor overlapsWider(DML_TENSOR_DATA_TYPE_FLOAT32, {1024, 1025, 2}, {2048, 2046, 1});
    test::expectInvalid(wider.make(widerInput, overlapsWider), "OutputTensor.Strides", {"must not overlap ("});
    // Three interleaved dimensions, decided by solving for two of them at
    // each difference of the third: apart (a brute force listed their
    // 1092624 offsets), and overlapping only through all three (24 * 4528 +
    // 49 * 15462 == 67 * 12930; no pair meets alone).
    Slice1 deep{{0, 0, 0}, {102, 103, 104}, {1, 1, 1}};
    Tensor deepInput(DML_TENSOR_DATA_TYPE_FLOAT32, {102, 103, 104});
    Tensor wovenDeep(DML_TENSOR_DATA_TYPE_FLOAT32, {102, 103, 104}, {8448, 3953, 16324});
    CHECK_FALSE(vkdml::validate(deep.make(deepInput, wovenDeep)).has_value());
    Tensor overlapsDeep(DML_TENSOR_DATA_TYPE_FLOAT32, {102, 103, 104}, {4528, 15462, 12930});
    test::expectInvalid(deep.make(deepInput, overlapsDeep), "OutputTensor.Strides", {"must not overlap ("});
    // Eight dimensions of 6, apart (their offsets are distinct modulo 6^8,
    // where the strides are 6^k), but the six smallest dimensions' 11^6
    // differences are more than vkdml tries: refused as unproven.
    const uint32_t m = 1679616;  // 6^8
    Slice1 many{std::vector<uint32_t>(8, 0), std::vector<uint32_t>(8, 6), std::vector<int32_t>(8, 1)};
    Tensor manyInput(DML_TENSOR_DATA_TYPE_UINT8, std::vector<uint32_t>(8, 6));
    Tensor wovenMany(DML_TENSOR_DATA_TYPE_UINT8, std::vector<uint32_t>(8, 6),
                     {1 + m, 6 + m, 36, 216, 1296, 7776, 46656, 279936});
    test::expectInvalid(many.make(manyInput, wovenMany), "OutputTensor.Strides", {"overlap", "1048576"});
  }
  SUBCASE("the overlap check against listing every offset, over random small layouts") {
    std::mt19937_64 rng(20261207);
    int accepted = 0, refused = 0;
    for (int n = 0; n < 2000; ++n) {
      const uint32_t rank = 1 + static_cast<uint32_t>(rng() % 4);
      std::vector<uint32_t> sizes(rank), strides(rank);
      for (uint32_t d = 0; d < rank; ++d) {
        sizes[d] = 1 + static_cast<uint32_t>(rng() % 5);
        strides[d] = static_cast<uint32_t>(rng() % 13);
      }
      if (rng() % 2) {  // an inner dimension below (or just at) the others' common divisor
        const uint32_t divisor = 2 + static_cast<uint32_t>(rng() % 4);
        for (uint32_t& stride : strides) stride *= divisor;
        sizes.push_back(2 + static_cast<uint32_t>(rng() % 2));
        strides.push_back(1 + static_cast<uint32_t>(rng() % 3));
      }
      if (rng() % 2) {  // an outer dimension past (or just at) the others' span
        uint32_t span = 0;
        for (size_t d = 0; d < sizes.size(); ++d) span += strides[d] * (sizes[d] - 1);
        sizes.insert(sizes.begin(), 2 + static_cast<uint32_t>(rng() % 3));
        strides.insert(strides.begin(), span + static_cast<uint32_t>(rng() % 3));
      }
      checkOverlapAgainstListing(sizes, strides, accepted, refused);
    }
    CHECK(accepted > 400);
    CHECK(refused > 400);
  }
  SUBCASE("the overlap check against listing every offset, over random woven layouts of 3 to 5 dimensions") {
    // Strides of a mixed radix, some plus the element count, are apart
    // (distinct modulo the count) and mostly interleaved; with two strides
    // drawn below the count instead, about half overlap, most of them only
    // through three dimensions or more (no pair meets alone).
    std::mt19937_64 rng(20261208);
    int accepted = 0, refused = 0, deep = 0;
    for (int n = 0; n < 600; ++n) {
      const uint32_t rank = 3 + static_cast<uint32_t>(rng() % 3);
      std::vector<uint32_t> sizes(rank), strides(rank);
      uint32_t count = 1;
      for (uint32_t& size : sizes) count *= size = 2 + static_cast<uint32_t>(rng() % 7);
      std::vector<uint32_t> order(rank);
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), rng);
      uint32_t radix = 1;
      for (uint32_t d : order) {
        strides[d] = radix + count * static_cast<uint32_t>(rng() % 2);
        radix *= sizes[d];
      }
      if (rng() % 3)
        for (int moved = 0; moved < 2; ++moved) strides[rng() % rank] = 1 + static_cast<uint32_t>(rng() % count);
      const int before = refused;
      checkOverlapAgainstListing(sizes, strides, accepted, refused);
      bool pairMeets = false;
      for (uint32_t i = 0; i < rank; ++i)
        for (uint32_t j = i + 1; j < rank; ++j) {
          const uint32_t g = std::gcd(strides[i], strides[j]);
          pairMeets = pairMeets || (strides[j] / g < sizes[i] && strides[i] / g < sizes[j]);
        }
      deep += refused > before && !pairMeets;
    }
    CHECK(accepted > 250);
    CHECK(refused > 120);
    CHECK(deep > 90);
  }
  SUBCASE("DimensionCount of a tensor is 1..8") {
    s.make(input, output);
    input.buffer.DimensionCount = 9;
    test::expectInvalid(s.op, "InputTensor.DimensionCount", {"9"});
    s.make(input, output);
    output.buffer.DimensionCount = 0;
    test::expectInvalid(s.op, "OutputTensor.DimensionCount", {"0"});
  }
  SUBCASE("a tensor's buffer descriptor and its Sizes are not null") {
    s.make(input, output);
    input.tensor.Desc = nullptr;
    test::expectInvalid(s.op, "InputTensor.Desc", {"null"});
    s.make(input, output);
    output.buffer.Sizes = nullptr;
    test::expectInvalid(s.op, "OutputTensor.Sizes", {"null"});
  }
}
