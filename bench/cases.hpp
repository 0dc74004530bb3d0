// Benchmark cases: each owns one operator descriptor (and everything it
// points into) and says how many bytes it reads and writes, or how many
// integer operations it performs.
#pragma once

#include <vkdml/vkdml.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bench {

// A tensor description that owns its arrays.
struct TensorSpec {
  std::vector<UINT> sizes;
  std::vector<UINT> strides;  // empty: packed
  DML_BUFFER_TENSOR_DESC buffer{};
  DML_TENSOR_DESC desc{};
  uint64_t elements() const;
};

struct Case {
  std::string op;     // "join", "slice1", ...
  std::string name;   // what it is, e.g. "cat axis 1"
  std::string shape;  // e.g. "3 x 8x64x512x256"
  std::string dtype;
  std::vector<TensorSpec*> inputs;  // binding order; nullptr = absent optional
  std::vector<TensorSpec*> outputs;
  DML_OPERATOR_DESC desc{};
  // Writes valid input contents (indices, say) before timing; may be empty.
  std::function<void(std::vector<vkdml::Buffer>& inputs)> prepare;
  uint64_t bytesMoved = 0;            // read + written, for bandwidth-bound cases
  double operations = 0;              // 2*M*N*K, for compute-bound cases
  std::string gemm;                   // "MxNxK" of a convolution's implicit GEMM
  std::string convolution;            // "stride S pad P" of a convolution
  std::string network;                // a network's layers: e.g. "resnet50 n32", with
  int count = 0;                      // how many of its convolutions have this shape
  bool optIn = false;                 // runs only where --filter names it
  TensorSpec* weights = nullptr;      // a convolution's filter (--owned-weights, --channels-last)
  TensorSpec* activations = nullptr;  // a convolution's input (--channels-last)
  TensorSpec* result = nullptr;       // a convolution's output (--channels-last-output)

  TensorSpec& tensor(DML_TENSOR_DATA_TYPE type, std::vector<UINT> sizes, std::vector<UINT> strides = {});
  // Storage for the operator's own descriptor and arrays, kept with the case.
  template <typename T>
  T& own(T value = {}) {
    auto p = std::make_shared<T>(std::move(value));
    owned.push_back(p);
    return *p;
  }

 private:
  std::deque<TensorSpec> tensors;  // stable addresses
  std::vector<std::shared_ptr<void>> owned;
};

using Cases = std::vector<std::unique_ptr<Case>>;

// Lays a 4-D tensor out with its channels (dimension 1) innermost, the
// others dense over them (NHWC, OHWI), or (`on` false) packed NCHW.
void layChannelsLast(TensorSpec& t, bool on);

// `large` selects the H200 sizes (1 GiB and more); the default sizes keep a
// run on lavapipe under a minute.
void addDataMovementCases(Cases& cases, bool large);
// int8: the convolutions INT8 x INT8 without zero points (torch._int_mm's
// arithmetic), rather than UINT8 x INT8 with per-tensor zero points.
void addConvolutionCases(Cases& cases, bool large, bool int8);
void addLatencyCases(Cases& cases);
// Every distinct convolution of ResNet-50 (torchvision's v1.5: the stride on
// the 3x3), batch 32 and 1 at 224x224 (large) or batch 1 at 56x56; opt-in.
void addResNet50Cases(Cases& cases, bool large, bool int8);

std::string dims(const std::vector<UINT>& sizes);

}  // namespace bench
