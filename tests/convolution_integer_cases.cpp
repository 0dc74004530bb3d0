// The DML_CONVOLUTION_INTEGER cases' machinery (convolution_integer.hpp):
// one case against the reference, the signedness and zero-point variants
// of a list, random shapes.
#include <algorithm>

#include "convolution_integer.hpp"

namespace test {
namespace conv {

std::string describe(const Case& c) {
  auto l = [](const std::vector<uint32_t>& v) {
    std::string s = "{";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "}";
  };
  return "input " + l(c.input) + " " + vkdml::toString(c.inputType) + ", filter " + l(c.filter) + " " +
         vkdml::toString(c.filterType) + ", strides " + l(c.strides) + ", dilations " + l(c.dilations) + ", pads " +
         l(c.startPadding) + l(c.endPadding) + ", groups " + std::to_string(c.groups) + ", zero points " +
         std::to_string(int(c.inputZeroPoint)) + "/" + std::to_string(int(c.filterZeroPoint)) +
         (c.strided ? ", strided" : "") + (c.inputStrides.empty() ? "" : ", input strides " + l(c.inputStrides)) +
         (c.filterStrides.empty() ? "" : ", filter strides " + l(c.filterStrides)) +
         (c.outputStrides.empty() ? "" : ", output strides " + l(c.outputStrides)) +
         (c.owned ? ", owned by DML " + std::to_string(c.owned) : "") +
         (c.zeroPointRank ? ", zero points of " + std::to_string(c.zeroPointRank) + " dimensions" : "");
}

namespace {
std::vector<uint32_t> ones(size_t rank) {
  return std::vector<uint32_t>(rank, 1);
}
}  // namespace

void runCase(const Case& c, std::mt19937_64& rng) {
  INFO(describe(c));
  Conv conv{c.strides, c.dilations, c.startPadding, c.endPadding, c.groups};
  const size_t rank = c.input.size();
  const std::vector<uint32_t> outSizes = conv.outputSizes(c.input, c.filter);
  auto layout = [&](const std::vector<uint32_t>& sizes, bool input) {
    return c.strided ? test::randomStrides(rng, sizes, input) : std::vector<uint32_t>{};
  };
  Tensor input(c.inputType, c.input, c.inputStrides.empty() ? layout(c.input, true) : c.inputStrides);
  Tensor filter(c.filterType, c.filter, c.filterStrides.empty() ? layout(c.filter, true) : c.filterStrides);
  Tensor output(I32, outSizes, c.outputStrides.empty() ? layout(outSizes, false) : c.outputStrides);
  const size_t zeroPointRank = c.zeroPointRank ? c.zeroPointRank : rank;
  std::vector<uint32_t> perChannel = ones(zeroPointRank);
  perChannel[zeroPointRank == 1 ? 0 : 1] = c.filter[0];
  const std::vector<uint32_t> perTensor = ones(zeroPointRank);
  Tensor inputZeroPoint(c.inputType, perTensor, layout(perTensor, true));
  Tensor filterZeroPoint(c.filterType, c.filterZeroPoint == ZeroPoint::PerChannel ? perChannel : perTensor,
                         layout(c.filterZeroPoint == ZeroPoint::PerChannel ? perChannel : perTensor, true));
  for (Tensor* t : {&input, &filter, &output, &inputZeroPoint, &filterZeroPoint}) t->randomize(rng);
  if (c.inputZeroPoint == ZeroPoint::PerTensorSymmetric) inputZeroPoint.set(0, c.inputType == I8 ? 0 : 128);
  if (c.filterZeroPoint == ZeroPoint::PerTensorSymmetric) filterZeroPoint.set(0, c.filterType == I8 ? 0 : 128);
  Tensor* xz = c.inputZeroPoint == ZeroPoint::None ? nullptr : &inputZeroPoint;
  Tensor* wz = c.filterZeroPoint == ZeroPoint::None ? nullptr : &filterZeroPoint;
  test::randomAlignment(rng, {&input, &filter, &output, xz, wz});
  const DML_OPERATOR_DESC& desc = conv.make(input, xz, filter, wz, output);
  if (c.owned) filter.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  if (c.owned == 2)
    for (Tensor* z : {xz, wz})
      if (z) z->buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  test::run(desc, {&input, xz, &filter, wz}, {&output});
  test::expectSameElements(output, reference(conv, input, xz, filter, wz, outSizes));
}

Case case2d(std::vector<uint32_t> input, std::vector<uint32_t> filter, uint32_t stride, uint32_t dilation,
            uint32_t pad0, uint32_t pad1, uint32_t groups) {
  Case c;
  c.input = std::move(input);
  c.filter = std::move(filter);
  c.strides = {stride, stride};
  c.dilations = {dilation, dilation};
  c.startPadding = {pad0, pad0};
  c.endPadding = {pad1, pad1};
  c.groups = groups;
  return c;
}

void runVariants(std::vector<Case> cases, std::mt19937_64& rng, bool strided) {
  const DML_TENSOR_DATA_TYPE types[4][2] = {{U8, U8}, {U8, I8}, {I8, U8}, {I8, I8}};
  const ZeroPoint modes[5][2] = {{ZeroPoint::None, ZeroPoint::None},
                                 {ZeroPoint::PerTensor, ZeroPoint::PerTensor},
                                 {ZeroPoint::PerTensor, ZeroPoint::PerChannel},
                                 {ZeroPoint::None, ZeroPoint::PerChannel},
                                 {ZeroPoint::PerTensor, ZeroPoint::None}};
  size_t i = 0;
  for (Case& c : cases) {
    for (int v = 0; v < 2; ++v, ++i) {
      c.inputType = types[i % 4][0];
      c.filterType = types[i % 4][1];
      c.inputZeroPoint = modes[i % 5][0];
      c.filterZeroPoint = modes[i % 5][1];
      c.strided = strided;
      c.owned = static_cast<int>(i % 3);
      c.zeroPointRank = i % 7 < 3 ? static_cast<uint32_t>(i % 7) + 1 : 0;  // 1 to 3, else the input's
      runCase(c, rng);
    }
  }
}

Case randomCase(std::mt19937_64& rng) {
  Case c;
  const uint32_t spatial = test::uniform(rng, 1, 4) == 1 ? 1 : 2;
  const uint32_t groups = std::vector<uint32_t>{1, 1, 2, 3}[test::uniform(rng, 0, 3)];
  const uint32_t cg = test::uniform(rng, 1, 9), ng = test::uniform(rng, 1, 20);
  c.input = {test::uniform(rng, 1, 3), cg * groups};
  c.filter = {ng * groups, cg};
  for (uint32_t i = 0; i < spatial; ++i) {
    uint32_t k = std::vector<uint32_t>{1, 3, 5, 7, 2}[test::uniform(rng, 0, 4)];
    c.strides.push_back(test::uniform(rng, 1, 3));
    c.dilations.push_back(test::uniform(rng, 1, 3));
    c.startPadding.push_back(test::uniform(rng, 0, 3));
    c.endPadding.push_back(test::uniform(rng, 0, 3));
    uint32_t extent = (k - 1) * c.dilations.back() + 1;
    uint32_t minimum =
        extent > c.startPadding.back() + c.endPadding.back() ? extent - c.startPadding.back() - c.endPadding.back() : 1;
    c.input.push_back(test::uniform(rng, std::max(minimum, 1u), minimum + 12));
    c.filter.push_back(k);
  }
  c.groups = groups;
  c.inputType = test::uniform(rng, 0, 1) ? I8 : U8;
  c.filterType = test::uniform(rng, 0, 1) ? I8 : U8;
  c.inputZeroPoint = static_cast<ZeroPoint>(test::uniform(rng, 0, 1));
  c.filterZeroPoint = static_cast<ZeroPoint>(test::uniform(rng, 0, 2));
  c.strided = test::uniform(rng, 0, 2) == 0;
  return c;
}

}  // namespace conv
}  // namespace test
