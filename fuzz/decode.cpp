#include "decode.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <iterator>
#include <numeric>
#include <type_traits>

#include "layout.hpp"

namespace fuzz {

namespace {

constexpr uint32_t kTypes[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32,
                               DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT32,
                               DML_TENSOR_DATA_TYPE_INT16,   DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_FLOAT64,
                               DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64};
constexpr uint32_t kIndexTypes[] = {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT64,
                                    DML_TENSOR_DATA_TYPE_UINT64};
constexpr uint32_t kOperators[] = {DML_OPERATOR_SLICE1, DML_OPERATOR_JOIN, DML_OPERATOR_SCATTER_ND,
                                   DML_OPERATOR_DIAGONAL_MATRIX1, DML_OPERATOR_CONVOLUTION_INTEGER};
// Values at the edges of what 32-bit sizes, strides and counts hold.
constexpr uint32_t kEdges[] = {0, 1, 2, 3, 8, 255, 256, 65535, 65536, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF};
constexpr int32_t kSignedEdges[] = {0, -1, 1, -2, INT_MIN, INT_MIN + 1, INT_MAX, -65536, 65536};

template <typename T>
void storeRaw(T& field, uint32_t bits) {  // an enum field set to any bits, as a C caller could
  static_assert(sizeof(T) == sizeof bits, "32-bit enum");
  std::memcpy(&field, &bits, sizeof bits);
}

class Decoder {
 public:
  Decoder(ByteReader& r, Case& c) : r_(r), c_(c) {}

  void operatorDesc() {
    const uint8_t which = r_.byte();
    switch (which % 5) {
      case 0:
        slice1();
        break;
      case 1:
        join();
        break;
      case 2:
        scatterNd();
        break;
      case 3:
        diagonalMatrix1();
        break;
      default:
        convolutionInteger();
        break;
    }
    uint32_t type = kOperators[which % 5];
    if (perturbs(which >= 250))
      type = r_.pick<uint32_t>({DML_OPERATOR_INVALID, DML_OPERATOR_SLICE, DML_OPERATOR_SPLIT,
                                DML_OPERATOR_DIAGONAL_MATRIX, DML_OPERATOR_GATHER_ND, 0xFFFFFFFF});
    storeRaw(c_.desc.Type, type);
    if (perturbs(r_.rarely(2))) c_.desc.Desc = nullptr;
  }

  void compileOptions() {
    const uint8_t b = r_.byte();
    using P = vkdml::ConvolutionPath;
    // The emulated cooperative-matrix path is left out: it compiles a
    // pipeline per geometry, seconds each on lavapipe.
    c_.options.convolutionPath = b < 200   ? P::Auto
                                 : b < 220 ? P::Portable
                                 : b < 240 ? P::DotProduct
                                 : b < 252 ? P::CooperativeMatrix
                                           : static_cast<P>(r_.pick<int>({-1, 6, 1000, INT_MIN}));
    // The dot path's tiled kernel, which Auto gives only GEMMs larger than
    // most cases here, on half of the dot-path cases.
    c_.options.dotKernel =
        c_.options.convolutionPath == P::DotProduct && (b & 1) ? vkdml::DotKernel::Tiled : vkdml::DotKernel::Auto;
  }

  void bindCalls() {
    const uint8_t b = r_.byte();
    if (b < 224) {
      c_.calls.push_back(call(b >= 112));
      c_.calls.push_back(call(b < 112));
      return;
    }
    for (uint32_t n = 1 + b % 4; n-- > 0;) c_.calls.push_back(call(r_.byte() & 1));
  }

  void dataSeed() { c_.dataSeed = r_.u64(); }

  void schedule() {
    c_.scheduleOffset = r_.consumed();
    const uint8_t which = r_.byte(), options = r_.byte();
    Schedule& s = c_.schedule;
    s.owned = which & 1;
    s.rebind = which & 2;
    s.initializerOrder = which & 4;
    s.ownedStayBound = which & 8;
    s.ownedBoundPersistent = which & 16;
    s.ownedRecorded = which & 32;
    s.rebindPersistent = static_cast<uint8_t>((which >> 6) % 3);
    s.ownedSecondTable = options & 1;
    s.decoyShift = 1 + (options >> 1) % 4;
    s.decoyKept = options & 8;
    s.otherPlan = options & 16;
    const uint8_t some = static_cast<uint8_t>(options >> 5);
    s.rebindSome = some < 6 ? some % 3 : some - 3;  // 6 and 7: the mixed tables (were 0 and 1)
  }

  void temporaryMisuse() { c_.temporaryMisuse = static_cast<uint8_t>(r_.byte() % 5); }

  // The byte after the schedule's: the compile options that compileOptions()
  // leaves Auto, each now and then a value outside its enumeration. Zero
  // leaves them all Auto.
  void moreOptions() {
    const uint8_t b = r_.byte();
    vkdml::CompileOptions& o = c_.options;
    if (b & 1) o.copyPath = vkdml::CopyPath::Kernel;
    if (b >> 6 == 3) storeRaw(o.copyPath, 2u);
    using K = vkdml::ConvolutionPacking;
    const uint32_t packing = (b >> 1) & 7;
    if (packing >= 1 && packing <= 4) o.convolutionPacking = static_cast<K>(packing);
    if (packing == 5 || packing == 6) storeRaw(o.convolutionPacking, packing == 5 ? 5u : 0xFFFFFFFFu);
    const uint32_t dot = (b >> 4) & 3;
    if (dot) storeRaw(o.dotKernel, dot == 1 ? 1u : dot == 2 ? 2u : 3u);  // Portable, Tiled, none
  }

 private:
  ByteReader& r_;
  Case& c_;

  // Marks the case as one that may break a rule (Case::perturbed) where
  // `taken`, the branch that perturbs; returns it.
  bool perturbs(bool taken) {
    c_.perturbed = c_.perturbed || taken;
    return taken;
  }

  uint32_t edge() { return r_.rarely(32) ? r_.u32() : kEdges[r_.byte() % std::size(kEdges)]; }

  // A dimension: mostly 1..8, sometimes up to 256 or 65536, rarely any
  // 32-bit value or an edge.
  uint32_t size() {
    const uint8_t b = r_.byte();
    if (b < 192) return 1 + b % 8;
    if (b < 240) return 1u + r_.byte();
    if (b < 250) return 1u + r_.u16();
    if (b < 253) return 1u + r_.u32() % 0xFFFFFFFFu;
    return edge();
  }
  // A value in [0, n): mostly from one byte, sometimes from four (large
  // windows, offsets and steps over large sizes).
  uint32_t below(uint32_t n) { return r_.rarely(16) ? r_.u32() % n : r_.byte() % n; }
  uint32_t rank(uint32_t lo, uint32_t hi) {  // biased to the first 4
    const uint8_t b = r_.byte();
    return lo + b % (b < 224 ? std::min(4u, hi - lo + 1) : hi - lo + 1);
  }
  uint32_t dataType() { return kTypes[r_.byte() % std::size(kTypes)]; }

  // An operator's array of `values` as long as the descriptor declares
  // (`declared`, extra entries 1); sometimes one entry at an edge, or null.
  template <typename T>
  const T* array(const std::vector<T>& values, uint32_t declared) {
    const uint32_t n = std::min(declared, 64u);
    T* a = c_.storage.array<T>(n);
    for (uint32_t i = 0; i < n; ++i) a[i] = i < values.size() ? values[i] : 1;
    if (n > 0 && perturbs(r_.rarely(8))) {
      const uint32_t at = r_.byte() % n;
      if constexpr (std::is_signed_v<T>)
        a[at] = kSignedEdges[r_.byte() % std::size(kSignedEdges)];
      else
        a[at] = edge();
    }
    return perturbs(r_.rarely(3)) ? nullptr : a;
  }
  uint32_t count(uint32_t value) {
    return perturbs(r_.rarely(4)) ? r_.pick<uint32_t>({0, 9, 0xFFFFFFFF, value + 1, value - 1}) : value;
  }

  // Strides for `sizes`: none (packed), packed, padded, permuted, 0 in
  // some dimensions, one of them huge (a view into a vast buffer), or raw
  // values.
  const UINT* strides(const UINT* sizes, uint32_t n) {
    const uint8_t mode = r_.byte();
    if (mode < 112) return nullptr;
    UINT* s = c_.storage.array<UINT>(n);
    std::vector<uint32_t> order(n);  // innermost first
    std::iota(order.rbegin(), order.rend(), 0u);
    if (mode >= 176 && mode < 208)
      for (uint32_t k = 0; k + 1 < n; ++k) std::swap(order[k], order[k + r_.byte() % (n - k)]);
    const bool padded = mode >= 144;
    uint64_t stride = padded ? r_.range(1, 2) : 1;
    for (uint32_t d : order) {
      s[d] = static_cast<UINT>(stride);  // a stride past 32 bits wraps: overlapping layouts
      perturbs(stride > UINT32_MAX);
      stride = stride * sizes[d] + (padded ? r_.range(0, 3) : 0);
    }
    perturbs(mode >= 208);
    if (mode >= 208 && mode < 224)
      for (uint32_t d = 0; d < n; ++d)
        if (r_.byte() & 1) s[d] = 0;
    if (mode >= 224 && mode < 232 && n > 0) s[r_.byte() % n] = r_.rarely(64) ? edge() : 1u << 24 | r_.u32();
    if (mode >= 232)
      for (uint32_t d = 0; d < n; ++d) s[d] = r_.rarely(96) ? edge() : r_.range(0, 8);
    return s;
  }

  // A tensor of `sizes` and `dataType`, then perturbed. Null when the
  // bytes say so.
  const DML_TENSOR_DESC* tensor(std::vector<uint32_t> sizes, uint32_t dataType) {
    if (perturbs(r_.rarely(12))) {
      const uint8_t what = r_.byte();
      const size_t at = r_.byte() % (sizes.size() + 1);
      if (what % 3 == 0 && at < sizes.size()) sizes[at] = r_.rarely(128) ? edge() : size();
      if (what % 3 == 1 && at < sizes.size()) sizes.erase(sizes.begin() + static_cast<long>(at));
      if (what % 3 == 2) sizes.insert(sizes.begin() + static_cast<long>(at), size());
    }
    const uint32_t declared = count(static_cast<uint32_t>(sizes.size()));
    const uint32_t n = std::min(declared, 64u);
    UINT* sizesArray = c_.storage.array<UINT>(n);
    u128 elements = 1;
    for (uint32_t i = 0; i < n; ++i) {
      sizesArray[i] = i < sizes.size() ? sizes[i] : 1;
      elements *= sizesArray[i];
      perturbs(sizesArray[i] == 0 || elements > UINT32_MAX);  // DirectML's limit of 2^32 - 1 elements
    }
    if (perturbs(r_.rarely(10))) dataType = r_.rarely(128) ? r_.u32() : r_.range(0, 12);
    const UINT* stridesArray = strides(sizesArray, n);

    const uint64_t exact = requiredBytes(dataType, sizesArray, n, stridesArray);
    perturbs(exact > UINT64_MAX - 4);  // saturated: past 2^64 bytes
    uint64_t total = exact;
    const uint8_t sizing = r_.byte();
    perturbs(sizing >= 216);
    if (sizing >= 200 && sizing < 216) total = exact + std::min<uint64_t>(UINT64_MAX - exact, r_.range(1, 64));
    if (sizing >= 216 && sizing < 232) total = exact - std::min<uint64_t>(exact, r_.range(1, 8));
    if (sizing >= 232 && sizing < 244) total = exact - (exact > 0 ? r_.range(0, 3) : 0);  // not rounded up to 4
    if (sizing >= 244)
      total = r_.rarely(64) ? r_.u64() : r_.pick<uint64_t>({0, 1ull << 32, 1ull << 40, UINT64_MAX, UINT64_MAX - 3});

    uint32_t alignment = 0;
    if (perturbs(r_.rarely(24))) {
      const uint8_t b = r_.byte();
      alignment = b < 208 ? 1u << (b % 13) : b < 240 ? r_.range(3, 100) : edge();
    }
    uint32_t flags = 0;
    if (perturbs(r_.rarely(8))) flags = r_.pick<uint32_t>({DML_TENSOR_FLAG_OWNED_BY_DML, 2, 3, 0x80000000u});

    auto* b = c_.storage.array<DML_BUFFER_TENSOR_DESC>(1);
    storeRaw(b->DataType, dataType);
    storeRaw(b->Flags, flags);
    b->DimensionCount = declared;
    b->Sizes = perturbs(r_.rarely(2)) ? nullptr : sizesArray;
    b->Strides = stridesArray;
    b->TotalTensorSizeInBytes = total;
    b->GuaranteedBaseOffsetAlignment = alignment;
    auto* t = c_.storage.array<DML_TENSOR_DESC>(1);
    storeRaw(t->Type, perturbs(r_.rarely(2)) ? r_.pick<uint32_t>({DML_TENSOR_TYPE_INVALID, 2, 0xFFFFFFFF})
                                             : DML_TENSOR_TYPE_BUFFER);
    t->Desc = perturbs(r_.rarely(2)) ? nullptr : b;
    return perturbs(r_.rarely(2)) ? nullptr : t;
  }

  template <typename Desc>
  void setDesc(const Desc& d) {
    c_.desc.Desc = c_.storage.one(d);
  }

  void slice1() {
    const uint32_t n = rank(1, 8), type = dataType();
    std::vector<uint32_t> in(n), offsets(n), windows(n), out(n);
    std::vector<int32_t> steps(n);
    for (uint32_t i = 0; i < n; ++i) {
      in[i] = size();
      const uint32_t extent = std::max(in[i], 1u);
      offsets[i] = below(extent);
      windows[i] = 1 + below(extent - offsets[i]);
      const uint32_t step = 1 + below(std::min(windows[i], 0x7FFFFFFFu));  // an INT
      steps[i] = r_.byte() & 1 ? -static_cast<int32_t>(step) : static_cast<int32_t>(step);
      out[i] = 1 + (windows[i] - 1) / step;
      if (perturbs(r_.rarely(12))) out[i] = r_.byte() & 1 ? out[i] + 1 : 1 + r_.byte() % out[i];  // too many / fewer
    }
    DML_SLICE1_OPERATOR_DESC d{};
    d.InputTensor = tensor(in, type);
    d.OutputTensor = tensor(out, type);
    d.DimensionCount = count(n);
    d.InputWindowOffsets = array(offsets, d.DimensionCount);
    d.InputWindowSizes = array(windows, d.DimensionCount);
    d.InputWindowStrides = array(steps, d.DimensionCount);
    c_.inputs = {d.InputTensor};
    c_.output = d.OutputTensor;
    setDesc(d);
  }

  void join() {
    const uint32_t n = rank(1, 8), type = dataType();
    std::vector<uint32_t> sizes(n);
    for (auto& s : sizes) s = size();
    const uint32_t axis = r_.byte() % n;
    const uint8_t b = r_.byte();
    const uint32_t inputCount = b < 224 ? 1 + b % 4 : perturbs(b >= 252) ? 0 : 1 + b % 16;
    auto* inputs = c_.storage.array<DML_TENSOR_DESC>(inputCount);
    uint64_t axisTotal = 0;
    for (uint32_t k = 0; k < inputCount; ++k) {
      std::vector<uint32_t> s = sizes;
      s[axis] = size();
      axisTotal += s[axis];
      const DML_TENSOR_DESC* t = tensor(s, type);
      if (t) inputs[k] = *t;  // else {INVALID, null}
      c_.inputs.push_back(&inputs[k]);
    }
    sizes[axis] = static_cast<uint32_t>(axisTotal);  // wraps past 2^32 - 1: a mismatch
    perturbs(axisTotal > UINT32_MAX);
    DML_JOIN_OPERATOR_DESC d{};
    d.InputCount = inputCount;
    d.InputTensors = perturbs(r_.rarely(2)) ? nullptr : inputs;
    d.OutputTensor = tensor(sizes, type);
    d.Axis = perturbs(r_.rarely(8)) ? edge() : axis;
    c_.output = d.OutputTensor;
    setDesc(d);
  }

  void scatterNd() {
    const uint32_t dc = rank(1, 8), type = dataType();
    const uint32_t indexType = kIndexTypes[r_.byte() % std::size(kIndexTypes)];
    const uint32_t inputDims = 1 + r_.byte() % dc;
    const uint32_t k = 1 + r_.byte() % inputDims;
    uint32_t indicesDims = 1 + r_.byte() % dc;
    const uint32_t sliceDims = inputDims - k;
    indicesDims = std::min(indicesDims, dc - sliceDims + 1);  // the updates' dimensions fit in dc
    std::vector<uint32_t> in(dc, 1), indices(dc, 1), updates;
    for (uint32_t d = dc - inputDims; d < dc; ++d) in[d] = size();
    for (uint32_t d = dc - indicesDims; d + 1 < dc; ++d) indices[d] = size();
    indices[dc - 1] = k;
    for (uint32_t d = dc - indicesDims; d + 1 < dc; ++d) updates.push_back(indices[d]);
    for (uint32_t d = dc - inputDims + k; d < dc; ++d) updates.push_back(in[d]);
    updates.insert(updates.begin(), dc - updates.size(), 1);
    DML_SCATTER_ND_OPERATOR_DESC d{};
    d.InputTensor = tensor(in, type);
    d.IndicesTensor = tensor(indices, indexType);
    d.UpdatesTensor = tensor(updates, type);
    d.OutputTensor = tensor(in, type);
    d.InputDimensionCount = perturbs(r_.rarely(8)) ? edge() : inputDims;
    d.IndicesDimensionCount = perturbs(r_.rarely(8)) ? edge() : indicesDims;
    c_.inputs = {d.InputTensor, d.IndicesTensor, d.UpdatesTensor};
    c_.output = d.OutputTensor;
    c_.indicesInput = 1;
    c_.indexMode = r_.byte();
    setDesc(d);
  }

  int32_t fill() {
    return r_.rarely(16) ? kSignedEdges[r_.byte() % std::size(kSignedEdges)] : static_cast<int8_t>(r_.byte());
  }

  void diagonalMatrix1() {
    const uint32_t n = rank(2, 4), type = dataType();
    std::vector<uint32_t> sizes(n);
    for (auto& s : sizes) s = size();
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC d{};
    d.InputTensor = r_.byte() & 1 ? nullptr : tensor(sizes, type);
    d.OutputTensor = tensor(sizes, type);
    storeRaw(d.ValueDataType, perturbs(r_.rarely(8)) ? r_.range(0, 12) : type);
    const uint64_t value = r_.u64();
    std::memcpy(d.Value.Bytes, &value, sizeof value);
    d.DiagonalFillBegin = fill();
    d.DiagonalFillEnd = fill();
    c_.inputs = {d.InputTensor};
    c_.output = d.OutputTensor;
    setDesc(d);
  }

  uint32_t channels() {
    const uint8_t b = r_.byte();
    return b < 224 ? 1 + b % 8 : 1u + r_.byte();
  }

  void convolutionInteger() {
    const uint32_t spatial = 2 - (r_.byte() & 1);
    const uint32_t batch = 1 + r_.byte() % 2, groups = 1 + r_.byte() % 4;
    const uint32_t groupChannels = channels(), groupOutputChannels = channels();
    std::vector<uint32_t> kernel(spatial), steps(spatial), dilations(spatial), start(spatial), end(spatial),
        inSize(spatial), outSize(spatial);
    for (uint32_t i = 0; i < spatial; ++i) {
      kernel[i] = 1 + r_.byte() % 3;
      steps[i] = 1 + r_.byte() % 3;
      dilations[i] = 1 + r_.byte() % 2;
      start[i] = r_.byte() % 3;
      end[i] = r_.byte() % 3;
      const uint32_t extent = (kernel[i] - 1) * dilations[i] + 1, pads = start[i] + end[i];
      inSize[i] = (extent > pads ? extent - pads : 1) + r_.byte() % 8;
      if (r_.rarely(12)) inSize[i] = size();
      const uint64_t padded = uint64_t(inSize[i]) + pads;
      outSize[i] = !perturbs(padded < extent) ? static_cast<uint32_t>((padded - extent) / steps[i] + 1) : 1;
    }
    const uint32_t inputType = r_.byte() & 1 ? DML_TENSOR_DATA_TYPE_INT8 : DML_TENSOR_DATA_TYPE_UINT8;
    const uint32_t filterType = r_.byte() & 1 ? DML_TENSOR_DATA_TYPE_INT8 : DML_TENSOR_DATA_TYPE_UINT8;
    const uint32_t outChannels = groups * groupOutputChannels;
    std::vector<uint32_t> in{batch, groups * groupChannels}, filter{outChannels, groupChannels},
        out{batch, outChannels};
    for (uint32_t i = 0; i < spatial; ++i) {
      in.push_back(inSize[i]);
      filter.push_back(kernel[i]);
      out.push_back(outSize[i]);
    }
    // Zero points of the input's rank, or of 1, 2 or the other of 3 and 4
    // dimensions (OutputChannelCount in the second, or the only, one); now and
    // then the filter's of another rank than the input's, which is refused.
    const uint8_t zeroPoints = r_.byte();
    const uint32_t ranks[] = {spatial + 2, 1, 2, spatial + 2 == 3 ? 4u : 3u};
    const uint32_t inputRank = ranks[zeroPoints / 6 % 4],
                   filterRank = perturbs(zeroPoints >= 240) ? 1 + inputRank % 4 : inputRank;
    const std::vector<uint32_t> perTensor(inputRank, 1);
    std::vector<uint32_t> perChannel(filterRank, 1);
    perChannel[filterRank == 1 ? 0 : 1] = outChannels;
    DML_CONVOLUTION_INTEGER_OPERATOR_DESC d{};
    d.InputTensor = tensor(in, inputType);
    d.InputZeroPointTensor = zeroPoints % 2 ? tensor(perTensor, inputType) : nullptr;
    d.FilterTensor = tensor(filter, filterType);
    d.FilterZeroPointTensor =
        zeroPoints / 2 % 3
            ? tensor(zeroPoints / 2 % 3 == 1 ? std::vector<uint32_t>(filterRank, 1) : perChannel, filterType)
            : nullptr;
    d.OutputTensor = tensor(out, DML_TENSOR_DATA_TYPE_INT32);
    d.DimensionCount = count(spatial);
    d.Strides = array(steps, d.DimensionCount);
    d.Dilations = array(dilations, d.DimensionCount);
    d.StartPadding = array(start, d.DimensionCount);
    d.EndPadding = array(end, d.DimensionCount);
    d.GroupCount = perturbs(r_.rarely(8)) ? edge() : groups;
    c_.inputs = {d.InputTensor, d.InputZeroPointTensor, d.FilterTensor, d.FilterZeroPointTensor};
    c_.output = d.OutputTensor;
    setDesc(d);
  }

  BindingChoice choice() {
    BindingChoice c;
    const uint8_t kind = r_.byte();
    c.kind = kind < 208   ? BindingChoice::Own
             : kind < 216 ? BindingChoice::Misaligned
             : kind < 224 ? BindingChoice::TooSmall
             : kind < 232 ? BindingChoice::OutOfRange
             : kind < 252 ? BindingChoice::Alias
                          : BindingChoice::Nothing;
    if (c.kind == BindingChoice::Alias) {
      c.other = r_.byte();
      const uint8_t delta = r_.byte();
      c.delta = delta < 160 ? 0 : delta < 240 ? (delta - 160u) * 4 : r_.u64();
    } else if (c.kind != BindingChoice::Own && c.kind != BindingChoice::Nothing) {
      c.delta = r_.byte();
    }
    if (r_.rarely(32)) c.slack = r_.range(1, 64);
    return c;
  }

  BindCall call(bool outputs) {
    BindCall call;
    call.outputs = outputs;
    const size_t slots = outputs ? 1 : c_.inputs.size();
    for (size_t i = 0; i < slots; ++i) call.bindings.push_back(choice());
    if (r_.rarely(6)) {
      if (r_.byte() & 1 || call.bindings.empty())
        call.bindings.push_back({});
      else
        call.bindings.pop_back();
    }
    return call;
  }
};

}  // namespace

std::unique_ptr<Case> decode(const uint8_t* data, size_t size) {
  auto c = std::make_unique<Case>();
  ByteReader r(data, size);
  Decoder d(r, *c);
  d.operatorDesc();
  d.compileOptions();
  d.dataSeed();
  d.bindCalls();
  d.schedule();  // after the rest: what comes before keeps its meaning
  d.moreOptions();
  d.temporaryMisuse();
  return c;
}

}  // namespace fuzz
