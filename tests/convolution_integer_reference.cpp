// DML_CONVOLUTION_INTEGER's reference (convolution_integer.hpp).
#include "convolution_integer.hpp"

namespace test {
namespace conv {

namespace {

// Every element of a UINT8/INT8 tensor as its integer value, in logical order.
std::vector<int32_t> valuesOf(const Tensor& t) {
  std::vector<int32_t> v(t.elementCount());
  for (uint64_t i = 0; i < v.size(); ++i) {
    uint64_t bits = t.get(i);
    v[i] = t.type == I8 ? static_cast<int8_t>(bits) : static_cast<int32_t>(bits);
  }
  return v;
}

}  // namespace

// The reference: a direct loop over the definition, accumulated in uint32
// (exact modulo 2^32). Tensors are normalized to 4-D ({N,C,W} -> {N,C,1,W}).
Tensor reference(const Conv& conv, const Tensor& input, const Tensor* inputZeroPoint, const Tensor& filter,
                 const Tensor* filterZeroPoint, const std::vector<uint32_t>& outSizes) {
  auto to4 = [](const std::vector<uint32_t>& s) {
    return s.size() == 4 ? s : std::vector<uint32_t>{s[0], s[1], 1, s[2]};
  };
  const std::vector<uint32_t> in = to4(input.sizes), f = to4(filter.sizes), out = to4(outSizes);
  const bool two = conv.spatial() == 2;
  const uint32_t sy = two ? conv.strides[0] : 1, sx = conv.strides.back();
  const uint32_t dy = two ? conv.dilations[0] : 1, dx = conv.dilations.back();
  const int64_t py = two ? conv.startPadding[0] : 0, px = conv.startPadding.back();
  const std::vector<int32_t> x = valuesOf(input), w = valuesOf(filter);
  const int32_t xz = inputZeroPoint ? valuesOf(*inputZeroPoint)[0] : 0;
  const std::vector<int32_t> wz = filterZeroPoint ? valuesOf(*filterZeroPoint) : std::vector<int32_t>{0};
  const uint32_t cg = f[1], ng = out[1] / conv.groups;
  Tensor expected(I32, outSizes);
  std::vector<uint32_t> result(expected.elementCount());
  uint64_t o = 0;
  for (uint32_t n = 0; n < out[0]; ++n)
    for (uint32_t oc = 0; oc < out[1]; ++oc) {
      const uint32_t g = oc / ng;
      const int32_t z = wz[wz.size() == 1 ? 0 : oc];
      for (uint32_t oy = 0; oy < out[2]; ++oy)
        for (uint32_t ox = 0; ox < out[3]; ++ox) {
          uint32_t sum = 0;
          for (uint32_t c = 0; c < cg; ++c)
            for (uint32_t ky = 0; ky < f[2]; ++ky)
              for (uint32_t kx = 0; kx < f[3]; ++kx) {
                int64_t iy = int64_t(oy) * sy + int64_t(ky) * dy - py;
                int64_t ix = int64_t(ox) * sx + int64_t(kx) * dx - px;
                int32_t value = xz;  // padding holds the input zero point
                if (iy >= 0 && iy < in[2] && ix >= 0 && ix < in[3])
                  value = x[((uint64_t(n) * in[1] + g * cg + c) * in[2] + uint64_t(iy)) * in[3] + uint64_t(ix)];
                int32_t weight = w[((uint64_t(oc) * cg + c) * f[2] + ky) * f[3] + kx];
                sum += static_cast<uint32_t>((value - xz) * (weight - z));
              }
          result[o++] = sum;
        }
    }
  for (uint64_t i = 0; i < result.size(); ++i) expected.set(i, result[i]);
  return expected;
}

}  // namespace conv
}  // namespace test
