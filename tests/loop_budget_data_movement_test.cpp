// The loop budget (runtime/core/plan.hpp, kLoopBudget) for data movement:
// lavapipe ends a shader's loops after 65535 passes per batch of
// invocations, silently, so every planner models its kernels' loops and
// shapes its dispatches to stay within the budget on every device. These
// tests plan (without running) Slice1, Join, ScatterND and DiagonalMatrix1
// at the extremes DirectML allows, for this device and for a device with
// every convolution path, and check each dispatch's model, at chosen
// extremes and over thousands of random shapes near the limits.
#include <algorithm>
#include <array>

#include "planning.hpp"

using namespace test::planning;

TEST_CASE("loop_budget: data movement at the extremes") {
  const vkdml::DeviceInfo devices[] = {test::device().info(), fullDevice()};
  constexpr auto U8 = DML_TENSOR_DATA_TYPE_UINT8;
  SUBCASE("Slice1: 2^31 rows of 2 elements that do not merge") {
    Desc input(U8, {65535, 32768, 2}, {1u << 21, 64, 1}), output(U8, {65535, 32768, 2});
    const UINT offsets[3] = {0, 0, 0}, sizes[3] = {65535, 32768, 2};
    const INT strides[3] = {1, 1, 1};
    DML_SLICE1_OPERATOR_DESC slice{&input.tensor, &output.tensor, 3, offsets, sizes, strides};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_SLICE1, &slice}, device);
  }
  SUBCASE("Slice1: 8 dimensions, 2^31 rows of 2") {
    Desc input(U8, {8, 8, 8, 8, 8, 8, 8191, 2},
               {(1u << 27) + 1, (1u << 24) + 1, (1u << 21) + 1, (1u << 18) + 1, (1u << 15) + 1, (1u << 12) + 1, 3, 1});
    Desc output(U8, {8, 8, 8, 8, 8, 8, 8191, 2});
    const UINT offsets[8] = {}, sizes[8] = {8, 8, 8, 8, 8, 8, 8191, 2};
    const INT strides[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    DML_SLICE1_OPERATOR_DESC slice{&input.tensor, &output.tensor, 8, offsets, sizes, strides};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_SLICE1, &slice}, device);
  }
  SUBCASE("Join: 65536 inputs of 32767 strided rows") {
    std::vector<std::unique_ptr<Desc>> inputs;
    std::vector<DML_TENSOR_DESC> descs;
    for (int i = 0; i < 65536; ++i) {
      inputs.push_back(std::make_unique<Desc>(U8, std::vector<UINT>{1, 32767, 2}, std::vector<UINT>{1u << 17, 4, 1}));
      descs.push_back(inputs.back()->tensor);
    }
    Desc output(U8, {65536, 32767, 2});
    DML_JOIN_OPERATOR_DESC join{65536, descs.data(), &output.tensor, 0};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_JOIN, &join}, device);
  }
  SUBCASE("Join: many short rows beside one row of 2^31 elements (found by the fuzzer)") {
    // The rows share their lanes: without pieces, the long row's lanes would
    // each walk 2^31 / 32 elements.
    Desc strided(U8, {1, 65536, 8192, 2}, {1u << 31, 1u << 15, 4, 1});
    Desc packed(U8, {1, 65536, 8192, 2});
    Desc output(U8, {2, 65536, 8192, 2});
    DML_TENSOR_DESC descs[2] = {strided.tensor, packed.tensor};
    DML_JOIN_OPERATOR_DESC join{2, descs, &output.tensor, 0};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_JOIN, &join}, device);
  }
  SUBCASE("Join: 2^30 rows of 2 over 8 dimensions beside rows of 2^14 (found by the fuzzer)") {
    // The long rows want 32 lanes each, which every short row then takes
    // too: only pieces shorter than 32 leave the short rows fewer lanes.
    const std::vector<UINT> inner = {4, 4, 4, 4, 4, 8, 2};
    std::vector<UINT> bigSizes = {(1u << 17) - 1}, smallSizes = {1}, outputSizes = {1u << 17};
    for (UINT s : inner) {
      bigSizes.push_back(s);
      smallSizes.push_back(s);
      outputSizes.push_back(s);
    }
    // Strides that merge no two dimensions: every row is 2 elements.
    const std::vector<UINT> bigStrides = {34133, 8533, 2133, 533, 133, 33, 4, 1};
    Desc big(U8, bigSizes, bigStrides), small(U8, smallSizes), output(U8, outputSizes);
    DML_TENSOR_DESC descs[2] = {big.tensor, small.tensor};
    DML_JOIN_OPERATOR_DESC join{2, descs, &output.tensor, 0};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_JOIN, &join}, device);
  }
  SUBCASE("DiagonalMatrix1: 2^32 - 2^16 rows of one element, one row of 2^32 - 2^16") {
    for (const std::vector<UINT>& shape : {std::vector<UINT>{65535, 65536, 1}, std::vector<UINT>{1, 65535u * 65536}}) {
      Desc output(U8, shape);
      DML_DIAGONAL_MATRIX1_OPERATOR_DESC diagonal{};
      diagonal.OutputTensor = &output.tensor;
      diagonal.ValueDataType = U8;
      for (const auto& device : devices) planWithinBudget({DML_OPERATOR_DIAGONAL_MATRIX1, &diagonal}, device);
    }
  }
  SUBCASE("ScatterND: 2^28 tuples of 8 coordinates") {
    Desc input(U8, {2, 2, 2, 2, 2, 2, 2, 2}), output(U8, {2, 2, 2, 2, 2, 2, 2, 2});
    Desc indices(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 1, 1, 1, 1, 1u << 28, 8});
    Desc updates(U8, {1, 1, 1, 1, 1, 1, 1, 1u << 28});
    DML_SCATTER_ND_OPERATOR_DESC scatter{&input.tensor, &indices.tensor, &updates.tensor, &output.tensor, 8, 2};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_SCATTER_ND, &scatter}, device);
  }
  SUBCASE("ScatterND: 4095 slices of 2^20 elements in 7 dimensions that do not merge") {
    const std::vector<UINT> shape = {4095, 8, 8, 8, 8, 8, 8, 4};
    Desc input(U8, shape);
    Desc output(U8, shape, {2396745, 299593, 37449, 4681, 585, 73, 9, 2});
    Desc indices(DML_TENSOR_DATA_TYPE_INT64, {1, 1, 1, 1, 1, 1, 4095, 1});
    Desc updates(U8, shape);
    DML_SCATTER_ND_OPERATOR_DESC scatter{&input.tensor, &indices.tensor, &updates.tensor, &output.tensor, 8, 2};
    for (const auto& device : devices) planWithinBudget({DML_OPERATOR_SCATTER_ND, &scatter}, device);
  }
}

namespace {
// Plans `desc` if the test device accepts it (random descriptors may break
// a rule, such as a footprint too large); whether it was planned.
bool planIfValid(const DML_OPERATOR_DESC& desc, const std::vector<vkdml::DeviceInfo>& devices) {
  try {
    test::device().createOperator(desc);
  } catch (const vkdml::Error&) {
    return false;
  }
  for (const auto& device : devices) planWithinBudget(desc, device);
  return true;
}
}  // namespace

TEST_CASE("loop_budget: random data movement near the limits, planned") {
  // The fuzzer found plans over the budget that the cases above missed
  // (many short rows beside long ones over 8 dimensions); this walks many
  // more such shapes, planning without running.
  const std::vector<vkdml::DeviceInfo> devices = {test::device().info(), fullDevice()};
  constexpr auto U8 = DML_TENSOR_DATA_TYPE_UINT8;
  constexpr uint64_t kMaxElements = 0xFFFFFFFFull;
  HugeShapes r(20261126);
  int planned = 0;
  for (int round = 0; round < 1000; ++round) {
    CAPTURE(round);
    const uint32_t rank = 1 + r.below(8);
    {  // Join: up to 6 inputs along a random axis
      std::vector<UINT> outSizes = r.sizes(rank, kMaxElements);
      const uint32_t axis = r.below(rank);
      const uint32_t count = std::min<uint32_t>(1 + r.below(6), outSizes[axis]);
      std::vector<std::unique_ptr<Desc>> inputs;
      std::vector<DML_TENSOR_DESC> descs;
      UINT left = outSizes[axis];
      bool ok = true;
      for (uint32_t i = 0; i < count; ++i) {
        std::vector<UINT> sizes = outSizes;
        sizes[axis] = i + 1 == count ? left : 1 + r.below(left - (count - i - 1));
        left -= sizes[axis];
        std::vector<UINT> strides = r.strides(sizes, true);
        ok = ok && !strides.empty();
        inputs.push_back(std::make_unique<Desc>(U8, sizes, strides));
        descs.push_back(inputs.back()->tensor);
      }
      const std::vector<UINT> outStrides = r.strides(outSizes, false);
      if (ok && !outStrides.empty()) {
        Desc output(U8, outSizes, outStrides);
        DML_JOIN_OPERATOR_DESC join{count, descs.data(), &output.tensor, axis};
        planned += planIfValid({DML_OPERATOR_JOIN, &join}, devices);
      }
    }
    {  // Slice1: windows with strides of -4..4
      const std::vector<UINT> inSizes = r.sizes(rank, kMaxElements);
      std::vector<UINT> offsets(rank), windows(rank), outSizes(rank);
      std::vector<INT> steps(rank);
      for (uint32_t d = 0; d < rank; ++d) {
        offsets[d] = r.below(inSizes[d]);
        windows[d] = 1 + r.below(inSizes[d] - offsets[d]);
        const INT magnitude = static_cast<INT>(1 + r.below(4));
        steps[d] = r.below(4) == 0 ? -magnitude : magnitude;
        outSizes[d] = 1 + (windows[d] - 1) / static_cast<UINT>(magnitude);
      }
      const std::vector<UINT> inStrides = r.strides(inSizes, true), outStrides = r.strides(outSizes, false);
      if (!inStrides.empty() && !outStrides.empty()) {
        Desc input(U8, inSizes, inStrides), output(U8, outSizes, outStrides);
        DML_SLICE1_OPERATOR_DESC slice{&input.tensor,  &output.tensor, rank,
                                       offsets.data(), windows.data(), steps.data()};
        planned += planIfValid({DML_OPERATOR_SLICE1, &slice}, devices);
      }
    }
    {  // DiagonalMatrix1, with or without an input, of 1- or 4-byte elements: a random band
      const auto type = r.below(2) ? DML_TENSOR_DATA_TYPE_UINT32 : U8;
      const std::vector<UINT> sizes = r.sizes(2 + rank % 3, kMaxElements / 4);  // 2..4 dimensions
      const std::vector<UINT> strides = r.strides(sizes, false), inStrides = r.strides(sizes, true);
      if (!strides.empty() && !inStrides.empty()) {
        Desc output(type, sizes, strides), input(type, sizes, inStrides);
        DML_DIAGONAL_MATRIX1_OPERATOR_DESC diagonal{};
        diagonal.InputTensor = r.below(2) ? &input.tensor : nullptr;
        diagonal.OutputTensor = &output.tensor;
        diagonal.ValueDataType = type;
        diagonal.DiagonalFillBegin = static_cast<INT>(r.below(65536)) - 32768;
        diagonal.DiagonalFillEnd = diagonal.DiagonalFillBegin + static_cast<INT>(r.below(65536));
        planned += planIfValid({DML_OPERATOR_DIAGONAL_MATRIX1, &diagonal}, devices);
      }
    }
    {  // ScatterND over 8 dimensions: tuples of k coordinates, slices of the rest
      const uint32_t inputDims = rank, k = 1 + r.below(inputDims), sliceDims = inputDims - k;
      const uint32_t tupleDims = r.below(8 - sliceDims);  // the indices' leading dimensions, before k
      std::vector<UINT> inSizes(8, 1), indexSizes(8, 1), updateSizes(8, 1);
      const std::vector<UINT> meaningful = r.sizes(inputDims, kMaxElements);
      std::copy(meaningful.begin(), meaningful.end(), inSizes.end() - inputDims);
      uint64_t slice = 1;
      for (uint32_t d = 8 - sliceDims; d < 8; ++d) slice *= inSizes[d];
      const std::vector<UINT> tuples = r.sizes(tupleDims, kMaxElements / std::max<uint64_t>(slice, k));
      std::copy(tuples.begin(), tuples.end(), indexSizes.end() - 1 - tupleDims);
      indexSizes[7] = k;
      std::copy(tuples.begin(), tuples.end(), updateSizes.end() - sliceDims - tupleDims);
      std::copy(inSizes.end() - sliceDims, inSizes.end(), updateSizes.end() - sliceDims);
      const auto indexType = std::array{DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32,
                                        DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_UINT64}[r.below(4)];
      const std::vector<UINT> inStrides = r.strides(inSizes, true), outStrides = r.strides(inSizes, false);
      const std::vector<UINT> indexStrides = r.strides(indexSizes, true), updateStrides = r.strides(updateSizes, true);
      if (!inStrides.empty() && !outStrides.empty() && !indexStrides.empty() && !updateStrides.empty()) {
        Desc input(U8, inSizes, inStrides), output(U8, inSizes, outStrides);
        Desc indices(indexType, indexSizes, indexStrides), updates(U8, updateSizes, updateStrides);
        DML_SCATTER_ND_OPERATOR_DESC scatter{&input.tensor,  &indices.tensor, &updates.tensor,
                                             &output.tensor, inputDims,       tupleDims + 1};
        planned += planIfValid({DML_OPERATOR_SCATTER_ND, &scatter}, devices);
      }
    }
  }
  // Most random descriptors are valid: a test that planned few would prove little.
  CHECK(planned >= 2500);
  MESSAGE("planned " << planned << " of 4000 random descriptors");
}
