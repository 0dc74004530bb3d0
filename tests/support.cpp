#include "support.hpp"

#include "kernel_checks.hpp"
#include "recorded.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <sstream>

namespace test {

int& messagesOutsideTests() {
  static int count = 0;
  return count;
}

std::shared_ptr<vkdml::Device>& deviceSlot() {
  static std::shared_ptr<vkdml::Device> slot;
  return slot;
}

// The test device's options: validation on (unless VKDML_VALIDATION=0), and
// each message a failed check.
vkdml::DeviceOptions testDeviceOptions() {
  vkdml::DeviceOptions options;
  const char* env = std::getenv("VKDML_VALIDATION");
  options.validation = !(env && std::string(env) == "0");
  options.onValidationMessage = [](const char* message) {
    std::fprintf(stderr, "validation: %s\n", message);
    if (doctest::is_running_in_test)
      FAIL_CHECK("Vulkan validation message: " << message);
    else
      ++messagesOutsideTests();
  };
  return options;
}

std::shared_ptr<vkdml::Device> sharedDevice() {
  auto& slot = deviceSlot();
  if (!slot) {
    slot = vkdml::Device::create(testDeviceOptions());
    static bool told = false;
    if (!told) {
      told = true;
      std::fprintf(stderr, "test device: %s, %s (validation %s)\n", slot->info().name.c_str(),
                   slot->info().driver.c_str(),
                   slot->info().validationEnabled ? "on" : "OFF: layers not installed or VKDML_VALIDATION=0");
    }
  }
  return slot;
}

std::shared_ptr<vkdml::Device> createDevice() {
  return vkdml::Device::create(testDeviceOptions());
}

ScopedDevice::ScopedDevice() : previous(sharedDevice()) {
  deviceSlot() = createDevice();
}
ScopedDevice::~ScopedDevice() {
  deviceSlot() = std::move(previous);
}

ScopedEnvironment::ScopedEnvironment(std::string variable, const std::string& value) : name(std::move(variable)) {
  if (const char* old = std::getenv(name.c_str())) previous = old;
  setenv(name.c_str(), value.c_str(), 1);
}
ScopedEnvironment::~ScopedEnvironment() {
  if (previous)
    setenv(name.c_str(), previous->c_str(), 1);
  else
    unsetenv(name.c_str());
}

void expectRefusedAtDeviceCreation(const char* variable, const std::string& value) {
  ScopedEnvironment environment(variable, value);
  try {
    createDevice();
    FAIL("accepted " << variable << "=" << value);
  } catch (const vkdml::Error& error) {
    CHECK(error.code() == vkdml::ErrorCode::InvalidArgument);
    CHECK(error.field() == variable);
    CHECK(std::string(error.what()).find("\"" + value + "\"") != std::string::npos);
  }
}

vkdml::CompileOptions& compileOptions() {
  static vkdml::CompileOptions options;
  return options;
}

vkdml::Device& device() {
  return *sharedDevice();
}

// ---------------------------------------------------------------- tensors

std::vector<uint32_t> packedStrides(const std::vector<uint32_t>& sizes) {
  std::vector<uint32_t> strides(sizes.size());
  uint64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = static_cast<uint32_t>(stride);
    stride *= sizes[i];
  }
  return strides;
}

Tensor::Tensor(DML_TENSOR_DATA_TYPE t, std::vector<uint32_t> s, std::vector<uint32_t> st)
    : type(t), sizes(std::move(s)), strides(std::move(st)) {
  bytes.assign(vkdmlCalcBufferTensorSize(type, rank(), sizes.data(), strides.empty() ? nullptr : strides.data()), 0);
}

uint64_t Tensor::elementCount() const {
  uint64_t n = 1;
  for (uint32_t s : sizes) n *= s;
  return n;
}

std::vector<uint64_t> Tensor::effectiveStrides() const {
  std::vector<uint64_t> out(sizes.size());
  auto packed = packedStrides(sizes);
  for (size_t i = 0; i < sizes.size(); ++i) out[i] = strides.empty() ? packed[i] : strides[i];
  return out;
}

uint64_t Tensor::offsetOf(uint64_t logicalIndex) const {
  uint64_t offset = 0;
  for (size_t i = sizes.size(); i-- > 0;) {
    uint64_t coordinate = logicalIndex % sizes[i];
    logicalIndex /= sizes[i];
    offset += coordinate * (strides.empty() ? packedStrides(sizes)[i] : strides[i]);
  }
  return offset;
}

uint64_t Tensor::get(uint64_t logicalIndex) const {
  uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + offsetOf(logicalIndex) * elementSize(), elementSize());
  return bits;
}

void Tensor::set(uint64_t logicalIndex, uint64_t bits) {
  std::memcpy(bytes.data() + offsetOf(logicalIndex) * elementSize(), &bits, elementSize());
}

void Tensor::randomize(std::mt19937_64& rng) {
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
}

const DML_TENSOR_DESC* Tensor::desc() {
  buffer.DataType = type;
  buffer.Flags = DML_TENSOR_FLAG_NONE;
  buffer.DimensionCount = rank();
  buffer.Sizes = sizes.data();
  buffer.Strides = strides.empty() ? nullptr : strides.data();
  buffer.TotalTensorSizeInBytes = bytes.size();
  buffer.GuaranteedBaseOffsetAlignment = alignment;
  tensor.Type = DML_TENSOR_TYPE_BUFFER;
  tensor.Desc = &buffer;
  return &tensor;
}

std::vector<uint32_t> randomStrides(std::mt19937_64& rng, const std::vector<uint32_t>& sizes, bool allowBroadcast) {
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  if (uniform(rng, 0, 1)) std::shuffle(order.begin(), order.end(), rng);
  std::vector<uint32_t> strides(sizes.size());
  uint64_t stride = uniform(rng, 1, 2);
  for (size_t k = order.size(); k-- > 0;) {  // order.back() is innermost
    size_t d = order[k];
    if (allowBroadcast && uniform(rng, 0, 4) == 0) {
      strides[d] = 0;
      continue;
    }
    strides[d] = static_cast<uint32_t>(stride);
    stride = stride * sizes[d] + uniform(rng, 0, 2);
  }
  return strides;
}

void randomAlignment(std::mt19937_64& rng, std::initializer_list<Tensor*> tensors) {
  for (Tensor* t : tensors)
    if (t && uniform(rng, 0, 2) == 0) t->alignment = t->elementSize();
}

// ---------------------------------------------------------------- running

namespace {
constexpr uint64_t kGuard = 256;

uint8_t guardByte(size_t buffer, uint64_t i) {
  return static_cast<uint8_t>(0xA5 ^ (buffer * 31) ^ (i * 7));
}

struct Placed {
  vkdml::Buffer buffer;
  std::vector<uint8_t> before;  // the whole buffer as uploaded
  uint64_t offset = 0;
  uint64_t size = 0;
};

// Where a binding starts: past the leading guard, at an offset that moves
// from run to run in steps of the alignment the tensor promises (16 bytes
// where it promises none), so code that assumes more than that is caught.
uint64_t bindingOffset(uint32_t alignment, size_t index) {
  static std::atomic<uint64_t> runs{0};
  const uint64_t step = alignment ? alignment : DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
  if (step >= kGuard) return step;
  return kGuard + step * ((runs.fetch_add(1) * 5 + index) % (kGuard / step));
}

Placed place(Tensor& t, size_t index) {
  Placed p;
  p.offset = bindingOffset(t.alignment, index);
  p.size = t.bytes.size();
  uint64_t total = p.offset + p.size + kGuard;
  p.before.resize(total);
  for (uint64_t i = 0; i < total; ++i) p.before[i] = guardByte(index, i);
  std::memcpy(p.before.data() + p.offset, t.bytes.data(), p.size);
  p.buffer = device().createBuffer(total);
  p.buffer.upload(p.before.data(), total);
  return p;
}

// A temporary or persistent resource of `bytes` between guard regions, its
// own bytes garbage (all bits set: a ScatterND mask that was not cleared
// skips every row).
Placed placeResource(uint64_t bytes, size_t index) {
  Tensor garbage;
  garbage.bytes.assign(bytes, 0xFF);
  garbage.alignment = DML_TEMPORARY_BUFFER_ALIGNMENT;
  return place(garbage, index);
}

// Checks that nothing outside the bound range of `p` changed.
void checkGuards(const Placed& p, const char* what) {
  std::vector<uint8_t> after(p.before.size());
  p.buffer.download(after.data(), after.size());
  bool guardsIntact = std::equal(after.begin(), after.begin() + static_cast<long>(p.offset), p.before.begin()) &&
                      std::equal(after.begin() + static_cast<long>(p.offset + p.size), after.end(),
                                 p.before.begin() + static_cast<long>(p.offset + p.size));
  CHECK_MESSAGE(guardsIntact, what << ": a guard region around the binding changed");
}

bool owned(const Tensor* t) {
  return t && (t->buffer.Flags & DML_TENSOR_FLAG_OWNED_BY_DML);
}

// Bytes of the footprint that are elements of `t`.
std::vector<bool> elementMask(const Tensor& t) {
  std::vector<bool> mask(t.bytes.size(), false);
  for (uint64_t i = 0; i < t.elementCount(); ++i) {
    uint64_t at = t.offsetOf(i) * t.elementSize();
    for (uint32_t b = 0; b < t.elementSize(); ++b) mask[at + b] = true;
  }
  return mask;
}
}  // namespace

std::string convolutionPathUnsupported() {
  Tensor input(DML_TENSOR_DATA_TYPE_UINT8, {1, 32, 8, 8}), filter(DML_TENSOR_DATA_TYPE_UINT8, {32, 32, 1, 1});
  Tensor output(DML_TENSOR_DATA_TYPE_INT32, {1, 32, 8, 8});
  const UINT ones[2] = {1, 1}, zeros[2] = {0, 0};
  DML_CONVOLUTION_INTEGER_OPERATOR_DESC conv{input.desc(), nullptr, filter.desc(), nullptr, output.desc(), 2, ones,
                                             ones,         zeros,   zeros,         1};
  try {
    device().compileOperator(device().createOperator({DML_OPERATOR_CONVOLUTION_INTEGER, &conv}));
  } catch (const vkdml::Error& e) {
    if (e.code() == vkdml::ErrorCode::Unsupported) return e.what();
    throw;
  }
  return "";
}

void run(const DML_OPERATOR_DESC& desc, const std::vector<Tensor*>& inputs, const std::vector<Tensor*>& outputs) {
  vkdml::Device& d = device();
  vkdml::Operator op = d.createOperator(desc);
  vkdml::CompiledOperator compiled = d.compileOperator(op, compileOptions());
  checkKernels(op, compiled);
  std::vector<Placed> placedInputs, placedOutputs;
  std::vector<vkdml::BufferBinding> inputBindings, outputBindings;
  placedInputs.reserve(inputs.size());
  placedOutputs.reserve(outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) {
      placedInputs.emplace_back();
      inputBindings.push_back({});
      continue;
    }
    placedInputs.push_back(place(*inputs[i], i));
    inputBindings.push_back({&placedInputs.back().buffer, placedInputs.back().offset, placedInputs.back().size});
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    placedOutputs.push_back(place(*outputs[i], 100 + i));
    outputBindings.push_back({&placedOutputs.back().buffer, placedOutputs.back().offset, placedOutputs.back().size});
  }
  // Temporary and persistent resources: every other run binds a
  // temporary resource of its own full of garbage, else the table allocates
  // one. Inputs flagged DML_TENSOR_FLAG_OWNED_BY_DML are bound for the
  // initializer alone (its table binds nothing else), then overwritten with
  // garbage: executions must read their copies in the persistent resource.
  const vkdml::BindingProperties properties = compiled.bindingProperties();
  static size_t runs = 0;
  std::optional<Placed> temporary, persistent;
  if (properties.temporaryResourceSize && ++runs % 2 == 0)
    temporary = placeResource(properties.temporaryResourceSize, 200);
  if (properties.persistentResourceSize) {
    persistent = placeResource(properties.persistentResourceSize, 201);
    std::vector<vkdml::BufferBinding> initializerInputs(inputBindings.size());
    for (size_t i = 0; i < inputs.size(); ++i)
      if (owned(inputs[i])) initializerInputs[i] = inputBindings[i];
    vkdml::BindingTable initializer = compiled.createBindingTable();
    initializer.bindInputs(initializerInputs);
    initializer.bindPersistent({&persistent->buffer, persistent->offset, persistent->size});
    d.initialize(compiled, initializer);
    checkGuards(*persistent, "the persistent resource");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!owned(inputs[i])) continue;
    std::vector<uint8_t> after(placedInputs[i].before.size());
    placedInputs[i].buffer.download(after.data(), after.size());
    CHECK_MESSAGE(after == placedInputs[i].before, "owned input " << i << " or its guard regions changed");
    const std::vector<uint8_t> garbage(placedInputs[i].size, 0x5A);  // at any offset, unlike fill
    placedInputs[i].buffer.upload(garbage.data(), garbage.size(), placedInputs[i].offset);
    inputBindings[i] = {};
  }
  // Every third run records the execution once with other bindings and
  // submits it again after rebinding (DirectML's binding model).
  Bindings bindings{inputBindings, outputBindings, std::nullopt, std::nullopt};
  if (temporary) bindings.temporary = vkdml::BufferBinding{&temporary->buffer, temporary->offset, temporary->size};
  if (persistent) bindings.persistent = vkdml::BufferBinding{&persistent->buffer, persistent->offset, persistent->size};
  static size_t rebindRuns = 0;
  if (++rebindRuns % 3 == 0) {
    executeAfterRebinding(d, compiled, bindings);
  } else {
    vkdml::BindingTable table = compiled.createBindingTable();
    table.bindInputs(inputBindings);
    table.bindOutputs(outputBindings);
    if (temporary) table.bindTemporary(*bindings.temporary);
    if (persistent) table.bindPersistent(*bindings.persistent);
    d.execute(compiled, table);
  }
  if (temporary) checkGuards(*temporary, "the temporary resource");
  if (persistent) checkGuards(*persistent, "the persistent resource");

  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i] || owned(inputs[i])) continue;
    std::vector<uint8_t> after(placedInputs[i].before.size());
    placedInputs[i].buffer.download(after.data(), after.size());
    CHECK_MESSAGE(after == placedInputs[i].before, "input " << i << " or its guard regions changed");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    Placed& p = placedOutputs[i];
    std::vector<uint8_t> after(p.before.size());
    p.buffer.download(after.data(), after.size());
    bool guardsIntact = std::equal(after.begin(), after.begin() + static_cast<long>(p.offset), p.before.begin()) &&
                        std::equal(after.begin() + static_cast<long>(p.offset + p.size), after.end(),
                                   p.before.begin() + static_cast<long>(p.offset + p.size));
    CHECK_MESSAGE(guardsIntact, "output " << i << ": a guard region around the binding changed");
    std::vector<bool> mask = elementMask(*outputs[i]);
    uint64_t gapWrites = 0;
    for (uint64_t b = 0; b < p.size; ++b)
      if (!mask[b] && after[p.offset + b] != p.before[p.offset + b]) ++gapWrites;
    CHECK_MESSAGE(gapWrites == 0, "output " << i << ": " << gapWrites << " bytes between strided elements changed");
    std::memcpy(outputs[i]->bytes.data(), after.data() + p.offset, p.size);
  }
}

void expectInvalid(const DML_OPERATOR_DESC& desc, const std::string& field, const std::vector<std::string>& mentions) {
  std::optional<vkdml::Error> error = vkdml::validate(desc);
  REQUIRE_MESSAGE(error.has_value(), "expected the descriptor to be rejected for " << field);
  std::string what = error->what();
  INFO("error: " << what);
  CHECK(error->code() == vkdml::ErrorCode::InvalidArgument);
  CHECK_MESSAGE(error->field().find(field) != std::string::npos,
                "the error's field '" << error->field() << "' should name " << field);
  CHECK_MESSAGE(what.find(error->op()) != std::string::npos, "the message should name the operator");
  CHECK_MESSAGE(what.find(field) != std::string::npos, "the message should name the field");
  for (const auto& m : mentions) CHECK_MESSAGE(what.find(m) != std::string::npos, "the message should mention " << m);
  CHECK_THROWS_AS(device().createOperator(desc), vkdml::Error);
}

void expectSameElements(const Tensor& actual, const Tensor& expected) {
  REQUIRE(actual.sizes == expected.sizes);
  REQUIRE(actual.type == expected.type);
  uint64_t mismatches = 0;
  for (uint64_t i = 0; i < expected.elementCount(); ++i) {
    uint64_t a = actual.get(i), e = expected.get(i);
    if (a == e) continue;
    if (++mismatches <= 5) {
      std::ostringstream where;
      uint64_t rest = i;
      std::vector<uint64_t> coordinate(expected.sizes.size());
      for (size_t d = expected.sizes.size(); d-- > 0;) {
        coordinate[d] = rest % expected.sizes[d];
        rest /= expected.sizes[d];
      }
      for (size_t d = 0; d < coordinate.size(); ++d) where << (d ? "," : "") << coordinate[d];
      FAIL_CHECK("element [" << where.str() << "] (" << vkdml::toString(expected.type) << "): got 0x" << std::hex << a
                             << ", expected 0x" << e);
    }
  }
  CHECK_MESSAGE(mismatches == 0, mismatches << " of " << expected.elementCount() << " elements differ");
}

// ---------------------------------------------------------------- types

const std::vector<DML_TENSOR_DATA_TYPE>& allTypes() {
  static const std::vector<DML_TENSOR_DATA_TYPE> types = {
      DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
      DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
      DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
      DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
  return types;
}

DML_TENSOR_DATA_TYPE typeFromName(const std::string& name) {
  for (auto t : allTypes())
    if (name == vkdml::toString(t)) return t;
  throw std::runtime_error("unknown data type " + name);
}

uint16_t toHalf(double value) {
  float f = static_cast<float>(value);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exponent = (x >> 23) & 0xFFu;
  uint32_t mantissa = x & 0x7FFFFFu;
  if (exponent == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u : 0u));
  int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  if (e <= 0) {  // subnormal or zero, round to nearest even
    if (e < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;
  return static_cast<uint16_t>(sign | half);
}

double fromHalf(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1F;
  int mantissa = bits & 0x3FF;
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

uint64_t bitsOfInteger(DML_TENSOR_DATA_TYPE type, int64_t value) {
  uint32_t size = vkdmlElementSizeInBytes(type);
  uint64_t bits = static_cast<uint64_t>(value);
  return size == 8 ? bits : bits & ((uint64_t(1) << (8 * size)) - 1);
}

uint64_t bitsOf(DML_TENSOR_DATA_TYPE type, double value) {
  switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: {
      float f = static_cast<float>(value);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    case DML_TENSOR_DATA_TYPE_FLOAT64: {
      uint64_t b;
      std::memcpy(&b, &value, 8);
      return b;
    }
    case DML_TENSOR_DATA_TYPE_FLOAT16:
      return toHalf(value);
    case DML_TENSOR_DATA_TYPE_UINT64:
      return static_cast<uint64_t>(value);
    default:
      return bitsOfInteger(type, static_cast<int64_t>(value));
  }
}

std::vector<uint32_t> randomSizes(std::mt19937_64& rng, uint32_t rank, uint64_t maxElements) {
  std::vector<uint32_t> sizes(rank, 1);
  uint64_t total = 1;
  // Grow random dimensions while the budget allows; some stay 1.
  for (int attempt = 0; attempt < 64; ++attempt) {
    uint32_t d = uniform(rng, 0, rank - 1);
    uint32_t grown = sizes[d] + uniform(rng, 1, 4);
    uint64_t next = total / sizes[d] * grown;
    if (next > maxElements) continue;
    total = next;
    sizes[d] = grown;
  }
  return sizes;
}

}  // namespace test
