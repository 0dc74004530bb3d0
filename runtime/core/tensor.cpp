#include "tensor.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "checked.hpp"

namespace vkdml {
namespace detail {

bool TensorInfo::sameLayout(const TensorInfo& o) const {
  if (rank != o.rank || elementSize != o.elementSize) return false;
  for (uint32_t i = 0; i < rank; ++i)
    if (sizes[i] != o.sizes[i] || (sizes[i] > 1 && strides[i] != o.strides[i])) return false;
  return true;
}

std::string TensorInfo::shape() const {
  return list(sizes.data(), rank);
}

namespace {
// An output must not write one element twice. Exact detection is a
// subset-sum problem in general. A dimension of size > 1 and stride 0
// repeats an element. Two rules set a dimension aside, since the layout then
// overlaps exactly where the others do: its stride exceeds the span of all
// the others' offsets (its blocks lie apart; only the largest stride can
// qualify), or its own span is below the greatest common divisor of the
// others' strides (its offsets are distinct residues modulo that divisor,
// which the others' offsets do not change; only the smallest stride can
// qualify). What is left overlaps iff some index difference d, not all zero
// and |d_k| < n_k, has sum(d_k * s_k) == 0. The two largest dimensions' part
// of d is solved exactly for each difference of the others (a linear
// Diophantine equation in two unknowns), so the work is the number of those
// differences, at most kTriedDifferences.
constexpr uint64_t kTriedDifferences = uint64_t(1) << 20;

using Dims = std::vector<std::pair<uint64_t, uint32_t>>;  // (stride, size)
// Sums of strides times differences, and their products in the solving, pass 2^64.
__extension__ typedef __int128 Wide;

// The dimensions left to decide, by stride; nullopt where one has stride 0.
std::optional<Dims> interleaved(const TensorInfo& t) {
  Dims dims;
  for (uint32_t i = 0; i < t.rank; ++i)
    if (t.sizes[i] > 1) {
      if (t.strides[i] == 0) return std::nullopt;
      dims.emplace_back(t.strides[i], t.sizes[i]);
    }
  std::sort(dims.begin(), dims.end());
  auto span = [](const std::pair<uint64_t, uint32_t>& d) { return d.first * (d.second - 1); };
  while (!dims.empty()) {
    uint64_t total = 0, others = 0;  // below the footprint, which readTensor checked
    for (const auto& d : dims) total += span(d);
    for (size_t i = 1; i < dims.size(); ++i) others = std::gcd(others, dims[i].first);
    if (dims.back().first > total - span(dims.back()))
      dims.pop_back();
    else if (span(dims.front()) < others)
      dims.erase(dims.begin());
    else
      break;
  }
  return dims;
}

Wide floorDiv(Wide a, Wide b) {  // b > 0
  return a / b - (a % b < 0 ? 1 : 0);
}
Wide ceilDiv(Wide a, Wide b) {  // b > 0
  return a / b + (a % b > 0 ? 1 : 0);
}

// The inverse of a modulo m, for coprime a and m >= 1.
Wide inverse(Wide a, Wide m) {
  Wide r0 = m, r1 = a % m, x0 = 0, x1 = 1;
  while (r1 != 0) {
    const Wide q = r0 / r1;
    std::swap(r0 -= q * r1, r1);
    std::swap(x0 -= q * x1, x1);
  }
  return ((x0 % m) + m) % m;
}

// Whether x * sa + y * sb == c has a solution with |x| < na, |y| < nb, and
// one other than x = y = 0 where `nonzero`.
bool solvable(uint64_t sa, uint32_t na, uint64_t sb, uint32_t nb, Wide c, bool nonzero) {
  const Wide g = std::gcd(sa, sb), a = sa / g, b = sb / g;
  if (c % g != 0) return false;
  c /= g;
  // x == c * a^-1 (mod b): x = x0 + t * b, y = (c - x * a) / b = y0 - t * a.
  const Wide x0 = ((c % b) + b) % b * inverse(a, b) % b, y0 = (c - x0 * a) / b;
  const Wide tLow = std::max(ceilDiv(-Wide(na - 1) - x0, b), ceilDiv(y0 - Wide(nb - 1), a));
  const Wide tHigh = std::min(floorDiv(Wide(na - 1) - x0, b), floorDiv(y0 + Wide(nb - 1), a));
  if (tLow > tHigh) return false;
  // x = y = 0 is the solution t = 0 of c == 0 (x0 = y0 = 0); any other t is not.
  return !nonzero || c != 0 || tLow != 0 || tHigh != 0;
}

// Whether two elements share an offset; nullopt where there are too many differences to try.
std::optional<bool> overlap(const TensorInfo& t) {
  std::optional<Dims> dims = interleaved(t);
  if (!dims) return true;
  if (dims->size() < 2) return false;
  // The two largest sizes are solved for; the rest are tried.
  std::sort(dims->begin(), dims->end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  const auto [sb, nb] = dims->back();
  dims->pop_back();
  const auto [sa, na] = dims->back();
  dims->pop_back();
  uint64_t differences = 1;
  for (const auto& d : *dims) {
    differences *= 2 * uint64_t(d.second) - 1;
    if (differences > kTriedDifferences) return std::nullopt;
  }
  // An odometer over d_k in [-(n_k - 1), n_k - 1], carrying sum(d_k * s_k).
  std::vector<int64_t> d(dims->size());
  Wide sum = 0;
  for (size_t k = 0; k < d.size(); ++k) {
    d[k] = -int64_t((*dims)[k].second - 1);
    sum += Wide(d[k]) * Wide((*dims)[k].first);
  }
  for (uint64_t i = 0; i < differences; ++i) {
    const bool zero = std::all_of(d.begin(), d.end(), [](int64_t v) { return v == 0; });
    if (solvable(sa, na, sb, nb, -sum, zero)) return true;
    for (size_t k = 0; k < d.size(); ++k) {
      const int64_t top = int64_t((*dims)[k].second - 1);
      if (d[k] < top) {
        ++d[k];
        sum += Wide((*dims)[k].first);
        break;
      }
      sum -= Wide(2 * top) * Wide((*dims)[k].first);
      d[k] = -top;
    }
  }
  return false;
}
}  // namespace

std::optional<TensorInfo> readTensor(const char* op, const std::string& field, const DML_TENSOR_DESC* desc,
                                     TensorRole role, bool optional) {
  if (!desc) {
    if (optional) return std::nullopt;
    throwInvalid(op, field, "is required but null");
  }
  if (rawBits(desc->Type) != DML_TENSOR_TYPE_BUFFER)
    throwInvalid(op, field + ".Type", concat("must be DML_TENSOR_TYPE_BUFFER (1), not ", rawBits(desc->Type)));
  const auto* b = static_cast<const DML_BUFFER_TENSOR_DESC*>(desc->Desc);
  if (!b) throwInvalid(op, field + ".Desc", "is null");
  TensorInfo t;
  const uint32_t dataType = rawBits(b->DataType);
  if (dataType >= 32 || !(kAnyDataType & (1u << dataType)))
    throwInvalid(op, field + ".DataType", concat("is not a valid data type (", dataType, ")"));
  t.dataType = static_cast<DML_TENSOR_DATA_TYPE>(dataType);
  t.elementSize = vkdmlElementSizeInBytes(t.dataType);
  if (b->DimensionCount < 1 || b->DimensionCount > kMaxDims)
    throwInvalid(op, field + ".DimensionCount", concat("must be 1..8, not ", b->DimensionCount));
  if (!b->Sizes) throwInvalid(op, field + ".Sizes", "is null");
  t.rank = b->DimensionCount;
  t.packed = b->Strides == nullptr;
  t.elementCount = 1;
  for (uint32_t i = 0; i < t.rank; ++i) {
    if (b->Sizes[i] < 1)
      throwInvalid(op, concat(field, ".Sizes[", i, "]"),
                   concat("must be >= 1, not 0 (Sizes ", list(b->Sizes, t.rank), ")"));
    t.sizes[i] = b->Sizes[i];
    t.elementCount *= b->Sizes[i];
    if (t.elementCount > kMaxElements)
      throwInvalid(op, field + ".Sizes",
                   concat("holds more than 2^32 - 1 elements (Sizes ", list(b->Sizes, t.rank), ")"));
  }
  uint64_t stride = 1;
  for (uint32_t i = t.rank; i-- > 0;) {
    t.strides[i] = b->Strides ? b->Strides[i] : stride;
    stride *= t.sizes[i];
  }
  // vkdmlCalcBufferTensorSize computes the same minimum but wraps: strides
  // can make it pass 2^64 bytes.
  Checked footprint = 1;
  for (uint32_t i = 0; i < t.rank; ++i) footprint += Checked(t.sizes[i] - 1) * t.strides[i];
  const std::string layout =
      concat("(Sizes ", t.shape(), b->Strides ? concat(", Strides ", list(b->Strides, t.rank)) : "", ", ",
             dataTypeName(t.dataType), ")");
  t.footprintElements = footprint.get(op, field + ".Strides", "the offset of the last element " + layout);
  const uint64_t minimum =
      (footprint * t.elementSize).roundUp(4).get(op, field + ".Strides", "the size in bytes " + layout);
  if (b->TotalTensorSizeInBytes < minimum)
    throwInvalid(op, field + ".TotalTensorSizeInBytes",
                 concat("must be >= ", minimum, " (the size its Sizes", b->Strides ? " and Strides" : "",
                        " imply, rounded up to 4), not ", b->TotalTensorSizeInBytes));
  t.totalBytes = b->TotalTensorSizeInBytes;
  uint32_t align = b->GuaranteedBaseOffsetAlignment;
  if (align != 0 && ((align & (align - 1)) != 0 || align < t.elementSize))
    throwInvalid(op, field + ".GuaranteedBaseOffsetAlignment",
                 concat("must be 0 or a power of two >= the element size ", t.elementSize, ", not ", align));
  t.offsetAlignment = align ? align : DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
  const uint32_t flags = rawBits(b->Flags);
  if (flags & ~static_cast<unsigned>(DML_TENSOR_FLAG_OWNED_BY_DML))
    throwInvalid(op, field + ".Flags", concat("has unknown bits (", flags, ")"));
  t.owned = (flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0;
  if (role == TensorRole::Output) {
    if (flags & DML_TENSOR_FLAG_OWNED_BY_DML)
      throwInvalid(op, field + ".Flags", "DML_TENSOR_FLAG_OWNED_BY_DML is for inputs only");
    const std::optional<bool> overlaps = overlap(t);
    if (!overlaps || *overlaps)
      throwInvalid(op, field + ".Strides",
                   concat(overlaps ? "an output's elements must not overlap"
                                   : concat("an output's elements must not overlap, which vkdml decides for more than "
                                            "two interleaved dimensions by trying the index differences of all "
                                            "but the two largest, at most ",
                                            kTriedDifferences),
                          " (Sizes ", t.shape(), ", Strides ", list(t.strides.data(), t.rank), ")"));
  }
  return t;
}

void requireRank(const char* op, const std::string& field, const TensorInfo& t, uint32_t minRank, uint32_t maxRank) {
  if (t.rank < minRank || t.rank > maxRank)
    throwInvalid(op, field + ".DimensionCount", concat("must be ", minRank, "..", maxRank, ", not ", t.rank));
}

void requireSameType(const char* op, const std::string& field, const TensorInfo& t, const std::string& otherField,
                     const TensorInfo& other) {
  if (t.dataType != other.dataType)
    throwInvalid(op, field + ".DataType",
                 concat("must match ", otherField, ".DataType (", dataTypeName(t.dataType), " vs ",
                        dataTypeName(other.dataType), ")"));
}

void requireType(const char* op, const std::string& field, const TensorInfo& t, uint32_t allowed) {
  if (allowed & (1u << t.dataType)) return;
  std::string names;
  for (uint32_t a = 0; a < 32; ++a)
    if (allowed & (1u << a)) names += concat(names.empty() ? "" : ", ", dataTypeName(a));
  throwInvalid(op, field + ".DataType", concat("must be one of ", names, ", not ", dataTypeName(t.dataType)));
}

}  // namespace detail
}  // namespace vkdml
