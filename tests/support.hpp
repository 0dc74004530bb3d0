// Test support shared by every operator's tests: the test device (validation
// layers on, any message fails the running test), tensors on the host with
// DirectML descriptors, running an operator with guard regions around every
// binding, and the element-wise reference helpers.
#pragma once

#include <doctest/doctest.h>
#include <vkdml/vkdml.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace test {

// The process-wide device: VKDML_DEVICE picks it (default lavapipe on a
// machine without a GPU), validation is on where the layers are installed.
vkdml::Device& device();
std::shared_ptr<vkdml::Device> sharedDevice();
// A new Device with the test device's options: one that reads the
// environment as it is now (a Device reads it once, when created).
std::shared_ptr<vkdml::Device> createDevice();
// While it lives, device() is a new Device, created with the environment as
// it is then (the one before comes back after).
struct ScopedDevice {
  std::shared_ptr<vkdml::Device> previous;
  ScopedDevice();
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;
};

// Sets an environment variable for the scope.
struct ScopedEnvironment {
  std::string name;
  std::optional<std::string> previous;
  ScopedEnvironment(std::string variable, const std::string& value);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
};

// A tensor on the host: its descriptor (sizes, optional strides) and the
// bytes of its whole footprint (TotalTensorSizeInBytes).
struct Tensor {
  DML_TENSOR_DATA_TYPE type = DML_TENSOR_DATA_TYPE_FLOAT32;
  std::vector<uint32_t> sizes;
  std::vector<uint32_t> strides;  // empty: packed
  std::vector<uint8_t> bytes;     // TotalTensorSizeInBytes of them
  uint32_t alignment = 0;         // GuaranteedBaseOffsetAlignment

  Tensor() = default;
  Tensor(DML_TENSOR_DATA_TYPE t, std::vector<uint32_t> s, std::vector<uint32_t> st = {});

  uint32_t elementSize() const { return vkdmlElementSizeInBytes(type); }
  uint32_t rank() const { return static_cast<uint32_t>(sizes.size()); }
  uint64_t elementCount() const;
  std::vector<uint64_t> effectiveStrides() const;  // strides or packed ones
  // Element offset (in elements) of a row-major logical index.
  uint64_t offsetOf(uint64_t logicalIndex) const;
  // Raw bits of the element at a row-major logical index (zero-extended).
  uint64_t get(uint64_t logicalIndex) const;
  void set(uint64_t logicalIndex, uint64_t bits);
  // Fills every byte of the footprint with random bits.
  void randomize(std::mt19937_64& rng);

  // The descriptor, refreshed on each call: valid while the Tensor lives and
  // its sizes and strides do not change.
  const DML_TENSOR_DESC* desc();
  DML_BUFFER_TENSOR_DESC buffer{};
  DML_TENSOR_DESC tensor{};
};

// Packed row-major strides of `sizes`.
std::vector<uint32_t> packedStrides(const std::vector<uint32_t>& sizes);
// Random strides for `sizes`: packed with random padding per dimension, a
// random dimension order, and (for inputs) 0-stride broadcasts.
std::vector<uint32_t> randomStrides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes, bool allowBroadcast);

// One time in three each, a tensor promises only its element size as
// GuaranteedBaseOffsetAlignment, the least DirectML allows, and run() binds
// it at an offset that is a multiple of that and no more. Call it before the
// descriptor is made.
void randomAlignment(std::mt19937_64& rng, std::initializer_list<Tensor*> tensors);

// The options that run() (and the tests that compile for themselves) pass
// to compileOperator.
vkdml::CompileOptions& compileOptions();

// While it lives, compileOptions() copies through the copy kernel even on a
// CPU device, which would take transfer commands (runtime/core/copy.hpp,
// planTransfer): for the tests of what only the kernel plan has (ScatterND's
// mask in binding-table scratch).
struct KernelCopies {
  vkdml::CopyPath previous = compileOptions().copyPath;
  KernelCopies() { compileOptions().copyPath = vkdml::CopyPath::Kernel; }
  ~KernelCopies() { compileOptions().copyPath = previous; }
  KernelCopies(const KernelCopies&) = delete;
  KernelCopies& operator=(const KernelCopies&) = delete;
};

// While it lives, run() checks that a convolution's GEMM (its last kernel),
// where it is a cooperative-matrix kernel, has `part` in its name: for the
// cases written to take one variant.
struct ExpectKernel {
  std::string previous;
  explicit ExpectKernel(std::string part);
  ~ExpectKernel();
  ExpectKernel(const ExpectKernel&) = delete;
  ExpectKernel& operator=(const ExpectKernel&) = delete;
};

// Device::create refuses `value` in the environment variable `variable` (a
// Device reads it once, when created) with InvalidArgument naming both.
void expectRefusedAtDeviceCreation(const char* variable, const std::string& value);

// Empty when the device can run DML_CONVOLUTION_INTEGER through the path
// $VKDML_CONVOLUTION_PATH names, else why not.
std::string convolutionPathUnsupported();

// Creates, compiles and executes `desc` on the test device. Every tensor is
// placed in its own buffer between guard regions filled with a pattern;
// afterwards the output's bytes are read back into `outputs`, and the test
// fails if any guard changed or any input changed. Non-null inputs only; an
// absent optional input is a nullptr entry.
void run(const DML_OPERATOR_DESC& desc, const std::vector<Tensor*>& inputs, const std::vector<Tensor*>& outputs);

// Expects the descriptor to be rejected with InvalidArgument naming `field`
// (a substring of Error::field()), the operator name, and each of `mentions`
// in the message.
void expectInvalid(const DML_OPERATOR_DESC& desc, const std::string& field,
                   const std::vector<std::string>& mentions = {});

// Expects `call` to fail with InvalidArgument whose field or message names `what`.
template <typename F>
void expectRejected(F&& call, const std::string& what) {
  try {
    call();
    FAIL("expected a rejection naming " << what);
  } catch (const vkdml::Error& e) {
    INFO(std::string(e.what()));
    CHECK(e.code() == vkdml::ErrorCode::InvalidArgument);
    CHECK((e.field().find(what) != std::string::npos || std::string(e.what()).find(what) != std::string::npos));
  }
}

// Compares the elements (logical order) of two tensors bit for bit; reports
// the first mismatches.
void expectSameElements(const Tensor& actual, const Tensor& expected);

// All eleven data types, and the four element sizes.
const std::vector<DML_TENSOR_DATA_TYPE>& allTypes();
DML_TENSOR_DATA_TYPE typeFromName(const std::string& name);

// IEEE binary16 from a double that binary16 represents exactly (or rounds).
uint16_t toHalf(double value);
double fromHalf(uint16_t bits);
// The bits of `value` stored as `type` (FLOAT16/32/64 or integers).
uint64_t bitsOf(DML_TENSOR_DATA_TYPE type, double value);
uint64_t bitsOfInteger(DML_TENSOR_DATA_TYPE type, int64_t value);

// Random integer in [lo, hi].
inline uint32_t uniform(std::mt19937_64& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

// Row-major coordinates of a logical index, and back.
inline std::vector<uint32_t> coordinatesOf(uint64_t index, const std::vector<uint32_t>& sizes) {
  std::vector<uint32_t> c(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    c[d] = static_cast<uint32_t>(index % sizes[d]);
    index /= sizes[d];
  }
  return c;
}
inline uint64_t indexOf(const std::vector<uint32_t>& coordinates, const std::vector<uint32_t>& sizes) {
  uint64_t index = 0;
  for (size_t d = 0; d < sizes.size(); ++d) index = index * sizes[d] + coordinates[d];
  return index;
}

// Random sizes of `rank` dimensions with at most about `maxElements` elements.
std::vector<uint32_t> randomSizes(std::mt19937_64& rng, uint32_t rank, uint64_t maxElements);

// A tensor of the conformance JSON ({"dtype", "sizes", "data"}) as a packed Tensor.
struct Json;
Tensor tensorFromJson(const Json& json);
// Every conformance case file whose "op" is `op`, by path.
std::vector<std::string> conformanceCases(const std::string& op);
// Runs `check` on each conformance case of `op` (at least `expected` of them
// must exist); says it skipped when the conformance folder is absent.
void forEachConformanceCase(const std::string& op, size_t expected, const std::function<void(const Json&)>& check);

// Where the ONNX conformance cases are (../shared/conformance/onnx beside the
// checkout, or $VKDML_CONFORMANCE_DIR); empty when absent.
std::string conformanceDir();

}  // namespace test
