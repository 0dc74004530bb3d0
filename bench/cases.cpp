#include "cases.hpp"

#include <climits>
#include <iterator>
#include <sstream>

namespace bench {

uint64_t TensorSpec::elements() const {
  uint64_t n = 1;
  for (UINT s : sizes) n *= s;
  return n;
}

TensorSpec& Case::tensor(DML_TENSOR_DATA_TYPE type, std::vector<UINT> sizes, std::vector<UINT> strides) {
  TensorSpec& t = tensors.emplace_back();
  t.sizes = std::move(sizes);
  t.strides = std::move(strides);
  const UINT* s = t.strides.empty() ? nullptr : t.strides.data();
  auto rank = static_cast<UINT>(t.sizes.size());
  t.buffer = {
      type, DML_TENSOR_FLAG_NONE, rank, t.sizes.data(), s, vkdmlCalcBufferTensorSize(type, rank, t.sizes.data(), s), 0};
  t.desc = {DML_TENSOR_TYPE_BUFFER, &t.buffer};
  return t;
}

void layChannelsLast(TensorSpec& t, bool on) {
  const std::vector<UINT>& s = t.sizes;
  t.strides = on ? std::vector<UINT>{s[1] * s[2] * s[3], 1, s[1] * s[3], s[1]} : std::vector<UINT>{};
  t.buffer.Strides = on ? t.strides.data() : nullptr;  // the same elements: the same total size
}

template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}

std::string dims(const std::vector<UINT>& sizes) {
  std::ostringstream s;
  for (size_t i = 0; i < sizes.size(); ++i) s << (i ? "x" : "") << sizes[i];
  return s.str();
}

namespace {

// The element type of a data-movement case: FLOAT32, or INT64 for the 8-byte
// elements the shaders move in one 64-bit access.
struct Element {
  DML_TENSOR_DATA_TYPE type;
  const char* name;
  UINT bytes;
};
constexpr Element kFloat32{DML_TENSOR_DATA_TYPE_FLOAT32, "FLOAT32", 4};
constexpr Element kInt64{DML_TENSOR_DATA_TYPE_INT64, "INT64", 8};

// A case's name, its element type named where it is not FLOAT32 (so that
// --filter can pick the 8-byte cases).
std::string named(std::string name, const Element& e) {
  return e.type == DML_TENSOR_DATA_TYPE_FLOAT32 ? name : name + ", " + e.name;
}

// torch.cat of three equal tensors along `axis`.
std::unique_ptr<Case> join(const std::vector<UINT>& sizes, UINT axis, const Element& e = kFloat32) {
  auto c = std::make_unique<Case>();
  c->op = "join";
  c->name = named("cat axis " + std::to_string(axis), e);
  c->shape = "3 x " + dims(sizes);
  c->dtype = e.name;
  std::vector<UINT> out = sizes;
  out[axis] *= 3;
  auto& inputs = c->own<std::vector<DML_TENSOR_DESC>>();
  for (int i = 0; i < 3; ++i) {
    c->inputs.push_back(&c->tensor(e.type, sizes));
    inputs.push_back(c->inputs.back()->desc);
  }
  c->outputs.push_back(&c->tensor(e.type, out));
  auto& d = c->own(DML_JOIN_OPERATOR_DESC{3, inputs.data(), &c->outputs[0]->desc, axis});
  c->desc = {DML_OPERATOR_JOIN, &d};
  c->bytesMoved = 2 * c->outputs[0]->elements() * e.bytes;
  return c;
}

// x[offsets : offsets + window : strides], made contiguous.
std::unique_ptr<Case> slice(std::string name, const std::vector<UINT>& inSizes, std::vector<UINT> offsets,
                            std::vector<UINT> window, std::vector<INT> strides, const Element& e = kFloat32) {
  auto c = std::make_unique<Case>();
  c->op = "slice1";
  c->name = named(std::move(name), e);
  c->shape = dims(inSizes);
  c->dtype = e.name;
  std::vector<UINT> out(inSizes.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = 1 + (window[i] - 1) / static_cast<UINT>(strides[i] < 0 ? -strides[i] : strides[i]);
  c->inputs.push_back(&c->tensor(e.type, inSizes));
  c->outputs.push_back(&c->tensor(e.type, out));
  auto& o = c->own(std::move(offsets));
  auto& w = c->own(std::move(window));
  auto& s = c->own(std::move(strides));
  auto& d = c->own(DML_SLICE1_OPERATOR_DESC{&c->inputs[0]->desc, &c->outputs[0]->desc, static_cast<UINT>(o.size()),
                                            o.data(), w.data(), s.data()});
  c->desc = {DML_OPERATOR_SLICE1, &d};
  c->bytesMoved = 2 * c->outputs[0]->elements() * e.bytes;
  return c;
}

// torch.triu(m, k) (with an input) or an eye-like band (without) of a stack.
std::unique_ptr<Case> diagonal(UINT batch, UINT size, bool withInput, INT k = 1, const Element& e = kFloat32) {
  auto c = std::make_unique<Case>();
  c->op = "diag";
  c->name = named(!withInput ? "eye: identity, no input"
                  : k == 1   ? "triu(m, 1): zero-fill below the diagonal"
                             : concat("triu(m, ", k, "): ", k > 0 ? "little of the input kept" : "little zero-filled"),
                  e);
  c->shape = concat(batch, "x", size, "x", size);
  c->dtype = e.name;
  TensorSpec& output = c->tensor(e.type, {batch, size, size});
  TensorSpec* input = withInput ? &c->tensor(e.type, {batch, size, size}) : nullptr;
  c->inputs = {input};
  c->outputs = {&output};
  DML_SCALAR_UNION value{};
  if (e.type == DML_TENSOR_DATA_TYPE_FLOAT32)
    value.Float32 = withInput ? 0.0f : 1.0f;
  else
    value.Int64 = withInput ? 0 : 1;
  // triu(m, k) keeps x - y >= k: zero-fill [INT32_MIN, k). eye: Value on [0, 1).
  auto& d = c->own(DML_DIAGONAL_MATRIX1_OPERATOR_DESC{input ? &input->desc : nullptr, &output.desc, e.type, value,
                                                      withInput ? INT32_MIN : 0, withInput ? k : 1});
  c->desc = {DML_OPERATOR_DIAGONAL_MATRIX1, &d};
  c->bytesMoved = (withInput ? 2 : 1) * output.elements() * e.bytes;
  return c;
}

// torch's clone + index_put of `updated` rows of `width` elements into `rows`
// rows: ScatterND out of place, INT64 row indices (distinct rows).
std::unique_ptr<Case> scatterRows(UINT rows, UINT updated, UINT width, const Element& e = kFloat32) {
  auto c = std::make_unique<Case>();
  c->op = "scatter";
  c->name = named("clone + scatter of rows", e);
  c->shape = concat(updated, " rows of ", width, " into ", rows);
  c->dtype = e.name;
  TensorSpec& input = c->tensor(e.type, {rows, width});
  TensorSpec& indices = c->tensor(DML_TENSOR_DATA_TYPE_INT64, {updated, 1});
  TensorSpec& updates = c->tensor(e.type, {updated, width});
  TensorSpec& output = c->tensor(e.type, {rows, width});
  c->inputs = {&input, &indices, &updates};
  c->outputs = {&output};
  auto& d = c->own(DML_SCATTER_ND_OPERATOR_DESC{&input.desc, &indices.desc, &updates.desc, &output.desc, 2, 2});
  c->desc = {DML_OPERATOR_SCATTER_ND, &d};
  c->prepare = [rows, updated](std::vector<vkdml::Buffer>& buffers) {
    std::vector<int64_t> rowIndices(updated);
    const uint64_t step = rows / updated;  // distinct rows spread over the tensor
    for (uint64_t i = 0; i < updated; ++i) rowIndices[i] = static_cast<int64_t>(step * ((i * 7919) % updated));
    buffers[1].upload(rowIndices.data(), rowIndices.size() * 8);
  };
  // Read the input and write the output, read the indices and the updates and
  // write the rows again.
  c->bytesMoved = 2 * input.elements() * e.bytes + indices.elements() * 8 + 2 * updates.elements() * e.bytes;
  return c;
}

// A UINT8 x INT8 convolution with per-tensor zero points, or (int8) INT8 x
// INT8 without them, square kernel.
std::unique_ptr<Case> convolution(std::string name, UINT n, UINT c, UINT oc, UINT hw, UINT k, UINT stride, UINT pad,
                                  bool int8) {
  auto cs = std::make_unique<Case>();
  cs->op = "conv";
  cs->name = std::move(name);
  UINT out = (hw + 2 * pad - k) / stride + 1;
  cs->shape = concat(n, "x", c, "x", hw, "x", hw, " * ", oc, "x", c, "x", k, "x", k);
  cs->dtype = int8 ? "INT8xINT8" : "UINT8xINT8";
  TensorSpec& input = cs->tensor(int8 ? DML_TENSOR_DATA_TYPE_INT8 : DML_TENSOR_DATA_TYPE_UINT8, {n, c, hw, hw});
  TensorSpec* inputZero = int8 ? nullptr : &cs->tensor(DML_TENSOR_DATA_TYPE_UINT8, {1, 1, 1, 1});
  TensorSpec& filter = cs->tensor(DML_TENSOR_DATA_TYPE_INT8, {oc, c, k, k});
  TensorSpec* filterZero = int8 ? nullptr : &cs->tensor(DML_TENSOR_DATA_TYPE_INT8, {1, 1, 1, 1});
  TensorSpec& output = cs->tensor(DML_TENSOR_DATA_TYPE_INT32, {n, oc, out, out});
  cs->inputs = {&input, inputZero, &filter, filterZero};
  cs->outputs = {&output};
  cs->weights = &filter;
  cs->activations = &input;
  cs->result = &output;
  auto& strides = cs->own(std::vector<UINT>{stride, stride});
  auto& dilations = cs->own(std::vector<UINT>{1, 1});
  auto& padding = cs->own(std::vector<UINT>{pad, pad});
  auto& d = cs->own(DML_CONVOLUTION_INTEGER_OPERATOR_DESC{
      &input.desc, inputZero ? &inputZero->desc : nullptr, &filter.desc, filterZero ? &filterZero->desc : nullptr,
      &output.desc, 2, strides.data(), dilations.data(), padding.data(), padding.data(), 1});
  cs->desc = {DML_OPERATOR_CONVOLUTION_INTEGER, &d};
  cs->operations = 2.0 * n * out * out * oc * c * k * k;  // 2*M*N*K
  cs->gemm = concat(n * out * out, "x", oc, "x", c * k * k);
  cs->convolution = concat("stride ", stride, " pad ", pad);
  return cs;
}

}  // namespace

void addConvolutionCases(Cases& cases, bool large, bool int8) {
  // The large shapes are the performance targets: ResNet-50-like layers at
  // N=32 and a GEMM-sized 1x1; the default ones are small enough for lavapipe.
  if (large) {
    cases.push_back(convolution("resnet 3x3 256->256 pad 1", 32, 256, 256, 56, 3, 1, 1, int8));
    cases.push_back(convolution("resnet 1x1 64->256", 32, 64, 256, 56, 1, 1, 0, int8));
    cases.push_back(convolution("resnet stem 7x7 stride 2", 32, 3, 64, 224, 7, 2, 3, int8));
    cases.push_back(convolution("1x1 8192->8192 (GEMM)", 8, 8192, 8192, 32, 1, 1, 0, int8));
  } else {
    cases.push_back(convolution("3x3 64->64 pad 1", 1, 64, 64, 28, 3, 1, 1, int8));
    cases.push_back(convolution("1x1 64->256", 1, 64, 256, 28, 1, 1, 0, int8));
    cases.push_back(convolution("stem 7x7 stride 2", 1, 3, 64, 56, 7, 2, 3, int8));
  }
}

void addResNet50Cases(Cases& cases, bool large, bool int8) {
  struct Shape {
    UINT c, oc, hw, k, stride;
    std::string where;
    int count;
  };
  std::vector<Shape> shapes;  // in network order, each shape once
  auto add = [&](UINT c, UINT oc, UINT hw, UINT k, UINT stride, const std::string& where) {
    for (Shape& s : shapes)
      if (s.c == c && s.oc == oc && s.hw == hw && s.k == k && s.stride == stride) {
        ++s.count;
        return;
      }
    shapes.push_back({c, oc, hw, k, stride, where, 1});
  };
  const UINT input = large ? 224 : 56;
  add(3, 64, input, 7, 2, "stem");
  UINT hw = (input + 2 * 3 - 7) / 2 + 1;
  hw = (hw + 2 * 1 - 3) / 2 + 1;  // the 3x3 stride-2 max pool
  UINT channels = 64;
  // Bottleneck stages: blocks, width; the output has 4x the width.
  const struct { UINT blocks, width, stride; } stages[] = {{3, 64, 1}, {4, 128, 2}, {6, 256, 2}, {3, 512, 2}};
  for (size_t s = 0; s < std::size(stages); ++s) {
    const auto& stage = stages[s];
    const std::string where = "layer" + std::to_string(s + 1);
    for (UINT b = 0; b < stage.blocks; ++b) {
      const UINT stride = b == 0 ? stage.stride : 1;
      add(channels, stage.width, hw, 1, 1, where);
      add(stage.width, stage.width, hw, 3, stride, where);
      const UINT out = (hw + 2 - 3) / stride + 1;
      add(stage.width, 4 * stage.width, out, 1, 1, where);
      if (b == 0) add(channels, 4 * stage.width, hw, 1, stride, where + " down");
      channels = 4 * stage.width;
      hw = out;
    }
  }
  for (UINT n : large ? std::vector<UINT>{32, 1} : std::vector<UINT>{1}) {
    const std::string network = concat("resnet50 n", n);
    for (const Shape& s : shapes) {
      auto c = convolution(concat(network, " ", s.where, " ", s.k, "x", s.k, s.stride > 1 ? concat("/", s.stride) : "",
                                  " ", s.c, "->", s.oc, " ", s.hw, "x", s.hw),
                           n, s.c, s.oc, s.hw, s.k, s.stride, s.k / 2, int8);
      c->network = network;
      c->count = s.count;
      c->optIn = true;
      cases.push_back(std::move(c));
    }
  }
}

void addLatencyCases(Cases& cases) {
  // Small tensors, where launch overhead dominates: read the median time.
  for (UINT kib : {4u, 64u, 1024u}) {
    const UINT floats = kib * 256;  // kib KiB of FLOAT32
    auto join3 = join({1, 1, 1, floats / 3 / 4 * 4}, 3);
    join3->name = "latency: cat of 3, " + std::to_string(kib) + " KiB out";
    cases.push_back(std::move(join3));
    auto flip = slice("latency: flip, " + std::to_string(kib) + " KiB", {1, 1, floats / 64, 64}, {0, 0, 0, 0},
                      {1, 1, floats / 64, 64}, {1, 1, -1, 1});
    cases.push_back(std::move(flip));
  }
}

void addDataMovementCases(Cases& cases, bool large) {
  // The large shapes are those of ../shared/gpu/H200.md's PyTorch table; the
  // default ones are 1/64 of them.
  UINT n = large ? 8 : 1, c = large ? 64 : 8;
  cases.push_back(join({n, c, 512, 256}, 1));
  cases.push_back(join({n, c, 512, 256}, 3));
  cases.push_back(
      slice("slice [:, :, 1:] (unit inner stride)", {n, c, 1024, 512}, {0, 0, 1, 0}, {n, c, 1023, 512}, {1, 1, 1, 1}));
  cases.push_back(
      slice("strided slice [:, :, ::2, 1::2]", {n, c, 1024, 1024}, {0, 0, 0, 1}, {n, c, 1024, 1023}, {1, 1, 2, 2}));
  cases.push_back(scatterRows(large ? 1u << 20 : 1u << 14, large ? 1u << 18 : 1u << 12, 256));
  cases.push_back(diagonal(large ? 16 : 1, large ? 4096 : 1024, true));
  cases.push_back(diagonal(large ? 16 : 1, large ? 4096 : 1024, false));
  // Bands far from the diagonal: a CPU device copies the input whole first
  // only where that saves more than it moves (docs/architecture.md, "The CPU plan").
  for (INT k : {1000, -1000}) cases.push_back(diagonal(large ? 16 : 1, large ? 4096 : 1024, true, large ? 4 * k : k));
  cases.push_back(slice("flip dim 2", {n, c, 1024, 512}, {0, 0, 0, 0}, {n, c, 1024, 512}, {1, 1, -1, 1}));
  // 8-byte elements, the same bytes as their FLOAT32 cases above: the shaders
  // move these as one 64-bit access each (uint64_t), where ScatterND's
  // duplicate targets need a single writer to win whole.
  const UINT h = c / 2, batch = large ? 8 : 1;
  cases.push_back(join({n, h, 512, 256}, 3, kInt64));
  cases.push_back(slice("strided slice [:, :, ::2, 1::2]", {n, h, 1024, 1024}, {0, 0, 0, 1}, {n, h, 1024, 1023},
                        {1, 1, 2, 2}, kInt64));
  cases.push_back(scatterRows(large ? 1u << 20 : 1u << 14, large ? 1u << 18 : 1u << 12, 128, kInt64));
  cases.push_back(diagonal(batch, large ? 4096 : 1024, true, 1, kInt64));
  cases.push_back(slice("flip dim 2", {n, h, 1024, 512}, {0, 0, 0, 0}, {n, h, 1024, 512}, {1, 1, -1, 1}, kInt64));
}

}  // namespace bench
