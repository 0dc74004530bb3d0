#include "cases.hpp"

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
      type, DML_TENSOR_FLAG_NONE, rank, t.sizes.data(), s, DMLCalcBufferTensorSize(type, rank, t.sizes.data(), s), 0};
  t.desc = {DML_TENSOR_TYPE_BUFFER, &t.buffer};
  return t;
}

std::string dims(const std::vector<UINT>& sizes) {
  std::ostringstream s;
  for (size_t i = 0; i < sizes.size(); ++i) s << (i ? "x" : "") << sizes[i];
  return s.str();
}

namespace {

// torch.cat of three equal FLOAT32 tensors along `axis`.
std::unique_ptr<Case> join(const std::vector<UINT>& sizes, UINT axis) {
  auto c = std::make_unique<Case>();
  c->op = "join";
  c->name = "cat axis " + std::to_string(axis);
  c->shape = "3 x " + dims(sizes);
  c->dtype = "FLOAT32";
  std::vector<UINT> out = sizes;
  out[axis] *= 3;
  auto& inputs = c->own<std::vector<DML_TENSOR_DESC>>();
  for (int i = 0; i < 3; ++i) {
    c->inputs.push_back(&c->tensor(DML_TENSOR_DATA_TYPE_FLOAT32, sizes));
    inputs.push_back(c->inputs.back()->desc);
  }
  c->outputs.push_back(&c->tensor(DML_TENSOR_DATA_TYPE_FLOAT32, out));
  auto& d = c->own(DML_JOIN_OPERATOR_DESC{3, inputs.data(), &c->outputs[0]->desc, axis});
  c->desc = {DML_OPERATOR_JOIN, &d};
  c->bytesMoved = 2 * c->outputs[0]->elements() * 4;
  return c;
}

// x[offsets : offsets + window : strides] of a FLOAT32 tensor, made contiguous.
std::unique_ptr<Case> slice(std::string name, const std::vector<UINT>& inSizes, std::vector<UINT> offsets,
                            std::vector<UINT> window, std::vector<INT> strides) {
  auto c = std::make_unique<Case>();
  c->op = "slice1";
  c->name = std::move(name);
  c->shape = dims(inSizes);
  c->dtype = "FLOAT32";
  std::vector<UINT> out(inSizes.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = 1 + (window[i] - 1) / static_cast<UINT>(strides[i] < 0 ? -strides[i] : strides[i]);
  c->inputs.push_back(&c->tensor(DML_TENSOR_DATA_TYPE_FLOAT32, inSizes));
  c->outputs.push_back(&c->tensor(DML_TENSOR_DATA_TYPE_FLOAT32, out));
  auto& o = c->own(std::move(offsets));
  auto& w = c->own(std::move(window));
  auto& s = c->own(std::move(strides));
  auto& d = c->own(DML_SLICE1_OPERATOR_DESC{&c->inputs[0]->desc, &c->outputs[0]->desc, static_cast<UINT>(o.size()),
                                            o.data(), w.data(), s.data()});
  c->desc = {DML_OPERATOR_SLICE1, &d};
  c->bytesMoved = 2 * c->outputs[0]->elements() * 4;
  return c;
}

}  // namespace

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
  cases.push_back(slice("flip dim 2", {n, c, 1024, 512}, {0, 0, 0, 0}, {n, c, 1024, 512}, {1, 1, -1, 1}));
}

}  // namespace bench
