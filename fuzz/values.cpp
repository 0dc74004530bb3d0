// The output of a plain execution against each operator's definition
// (../shared/spec/OPERATORS.md), computed by the fuzzer from the bytes the
// inputs held: a check that no kernel of the library's takes part in.
#include <array>
#include <cstring>
#include <vector>

#include "harness.hpp"

namespace fuzz {

namespace {

using Coordinate = std::array<uint32_t, DML_TENSOR_DIMENSION_COUNT_MAX1>;

uint64_t byteOffset(const Layout& t, const uint32_t* coordinate) {
  uint64_t offset = 0;
  for (uint32_t dim = 0; dim < t.rank; ++dim) offset += coordinate[dim] * t.strides[dim];
  return offset * t.elementSize;
}

// Calls f(n, coordinate) for each element of `t`, row-major.
template <typename F>
void forEachCoordinate(const Layout& t, F&& f) {
  Coordinate c{};
  for (uint64_t n = 0; n < static_cast<uint64_t>(t.elementCount); ++n) {
    f(n, c);
    for (uint32_t dim = t.rank; dim-- > 0;) {
      if (++c[dim] < t.sizes[dim]) break;
      c[dim] = 0;
    }
  }
}

}  // namespace

void Run::checkValues(const std::vector<uint8_t>& after) const {
  const uint32_t type = operatorType(c_.desc);
  if (type == DML_OPERATOR_SCATTER_ND) return checkScatterValues(after);
  if (type == DML_OPERATOR_CONVOLUTION_INTEGER) return checkConvolutionValues(after);
  const Layout& out = *layouts_[outputSlot()];
  const uint64_t outBase = (*boundOutputs_)[0].offset;
  const uint8_t zeros[8] = {};
  // The bytes the element at `c` must hold (`why` says where they come from).
  auto expected = [&](const Coordinate& c, std::string& why) -> const uint8_t* {
    Coordinate from = c;
    size_t slot = 0;
    if (type == DML_OPERATOR_JOIN) {
      const auto& d = *static_cast<const DML_JOIN_OPERATOR_DESC*>(c_.desc.Desc);
      uint32_t start = 0;
      while (slot + 1 < outputSlot() && c[d.Axis] >= start + layouts_[slot]->sizes[d.Axis])
        start += layouts_[slot++]->sizes[d.Axis];
      from[d.Axis] = c[d.Axis] - start;
    } else if (type == DML_OPERATOR_SLICE1) {
      const auto& d = *static_cast<const DML_SLICE1_OPERATOR_DESC*>(c_.desc.Desc);
      for (uint32_t dim = 0; dim < out.rank; ++dim) {
        const int64_t stride = d.InputWindowStrides[dim];
        const int64_t start = int64_t(d.InputWindowOffsets[dim]) + (stride < 0 ? d.InputWindowSizes[dim] - 1 : 0);
        from[dim] = static_cast<uint32_t>(start + stride * c[dim]);
      }
    } else if (type == DML_OPERATOR_DIAGONAL_MATRIX1) {
      const auto& d = *static_cast<const DML_DIAGONAL_MATRIX1_OPERATOR_DESC*>(c_.desc.Desc);
      const int64_t topX = int64_t(c[out.rank - 1]) - c[out.rank - 2];
      const bool useValue =
          (d.DiagonalFillEnd >= d.DiagonalFillBegin) ^ (topX >= d.DiagonalFillBegin) ^ (topX < d.DiagonalFillEnd);
      if (useValue) {
        why = "Value";
        return d.Value.Bytes;
      }
      if (!layouts_[0]) {
        why = "zero (no InputTensor)";
        return zeros;
      }
    }
    why = str("input ", slot, "'s element");
    return &before_[(*boundInputs_)[slot].offset + byteOffset(*layouts_[slot], from.data())];
  };
  forEachCoordinate(out, [&](uint64_t n, const Coordinate& c) {
    std::string why;
    const uint8_t* want = expected(c, why);
    const uint8_t* got = &after[outBase + byteOffset(out, c.data())];
    if (std::memcmp(got, want, out.elementSize) != 0)
      finding(str("output element ", n, " is ", hexBytes(got, out.elementSize), ", not ",
                  hexBytes(want, out.elementSize), " (", why, ")"));
  });
}

// DML_SCATTER_ND's output after the plain execution against the operator's
// definition: output = input, then output[indices[j]] = updates[j] (the
// slice after the k indexed dimensions). Each element is the input's, or,
// where tuples name its target, one of their updates'.
void Run::checkScatterValues(const std::vector<uint8_t>& after) const {
  const Layout &in = *layouts_[0], &updates = *layouts_[2], &out = *layouts_[outputSlot()];
  uint32_t first = 0, k = 0;
  const std::vector<uint64_t> tuples = scatterTargets(first, k);
  uint64_t targets = 1, slice = 1;
  for (uint32_t i = 0; i < k; ++i) targets *= out.sizes[first + i];
  for (uint32_t dim = first + k; dim < out.rank; ++dim) slice *= out.sizes[dim];
  std::vector<std::vector<uint32_t>> writers(targets);
  for (size_t j = 0; j < tuples.size(); ++j) writers[tuples[j]].push_back(static_cast<uint32_t>(j));
  const uint64_t inBase = (*boundInputs_)[0].offset, updatesBase = (*boundInputs_)[2].offset,
                 outBase = (*boundOutputs_)[0].offset;
  forEachCoordinate(out, [&](uint64_t n, const Coordinate& c) {
    uint64_t t = 0, s = 0;
    for (uint32_t i = 0; i < k; ++i) t = t * out.sizes[first + i] + c[first + i];
    for (uint32_t dim = first + k; dim < out.rank; ++dim) s = s * out.sizes[dim] + c[dim];
    const uint8_t* got = &after[outBase + byteOffset(out, c.data())];
    const uint8_t* input = &before_[inBase + byteOffset(in, c.data())];
    bool match = writers[t].empty() && std::memcmp(got, input, out.elementSize) == 0;
    for (uint32_t j : writers[t]) {
      Coordinate u{};
      uint64_t element = j * slice + s;  // the update's, row-major
      for (uint32_t dim = updates.rank; dim-- > 0;) {
        u[dim] = static_cast<uint32_t>(element % updates.sizes[dim]);
        element /= updates.sizes[dim];
      }
      match = match || std::memcmp(got, &before_[updatesBase + byteOffset(updates, u.data())], out.elementSize) == 0;
    }
    if (!match)
      finding(str("output element ", n, " is ", hexBytes(got, out.elementSize), ": ",
                  writers[t].empty()
                      ? str("no index tuple names it, so it is the input's, ", hexBytes(input, out.elementSize))
                      : str("index tuples name it (", writers[t].size(), ", the first ", writers[t][0],
                            "), so it is one of their updates")));
  });
}

// DML_CONVOLUTION_INTEGER's output after the plain execution against a
// direct loop over the definition: each element the sum, over its group's
// input channels and the kernel's taps, of (input - input zero point) *
// (filter - its output channel's zero point), padding holding the input
// zero point, modulo 2^32 (fitsExecution bounds the loop).
void Run::checkConvolutionValues(const std::vector<uint8_t>& after) const {
  const auto& d = *static_cast<const DML_CONVOLUTION_INTEGER_OPERATOR_DESC*>(c_.desc.Desc);
  const Layout &in = *layouts_[0], &filter = *layouts_[2], &out = *layouts_[outputSlot()];
  auto value = [&](size_t slot, const Coordinate& c) -> int32_t {
    const Layout& t = *layouts_[slot];
    const uint8_t bits = before_[(*boundInputs_)[slot].offset + byteOffset(t, c.data())];
    return t.dataType == DML_TENSOR_DATA_TYPE_INT8 ? static_cast<int8_t>(bits) : bits;
  };
  auto zeroPoints = [&](size_t slot) {  // row-major: one, or one per output channel
    std::vector<int32_t> z;
    if (layouts_[slot])
      forEachCoordinate(*layouts_[slot], [&](uint64_t, const Coordinate& c) { z.push_back(value(slot, c)); });
    else
      z.push_back(0);
    return z;
  };
  const std::vector<int32_t> inputZero = zeroPoints(1), filterZero = zeroPoints(3);
  const uint32_t spatial = out.rank - 2, groupChannels = filter.sizes[1], groupOutputs = out.sizes[1] / d.GroupCount;
  const uint64_t taps = static_cast<uint64_t>(filter.elementCount) / filter.sizes[0];
  const uint64_t outBase = (*boundOutputs_)[0].offset;
  forEachCoordinate(out, [&](uint64_t n, const Coordinate& o) {
    const uint32_t oc = o[1];
    const int32_t filterZeroPoint = filterZero[filterZero.size() == 1 ? 0 : oc];
    Coordinate k{}, x = o;  // the filter's element (oc, channel, taps) and the input's it meets
    k[0] = oc;
    uint32_t sum = 0;
    for (uint64_t t = 0; t < taps; ++t) {
      x[1] = oc / groupOutputs * groupChannels + k[1];
      bool inside = true;
      for (uint32_t s = 0; s < spatial; ++s) {
        const int64_t at = int64_t(o[2 + s]) * d.Strides[s] + int64_t(k[2 + s]) * d.Dilations[s] - d.StartPadding[s];
        inside = inside && at >= 0 && at < in.sizes[2 + s];
        x[2 + s] = static_cast<uint32_t>(at);
      }
      if (inside) sum += static_cast<uint32_t>((value(0, x) - inputZero[0]) * (value(2, k) - filterZeroPoint));
      for (uint32_t dim = filter.rank; dim-- > 1;) {
        if (++k[dim] < filter.sizes[dim]) break;
        k[dim] = 0;
      }
    }
    uint8_t want[4];
    std::memcpy(want, &sum, sizeof want);  // little-endian
    const uint8_t* got = &after[outBase + byteOffset(out, o.data())];
    if (std::memcmp(got, want, sizeof want) != 0)
      finding(str("output element ", n, " is ", hexBytes(got, 4), ", not ", hexBytes(want, 4),
                  " (the convolution's sum over ", taps, " taps)"));
  });
}

}  // namespace fuzz
