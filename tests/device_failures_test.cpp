// The runtime around the operators when things fail: allocation failures
// and limits, exceptions from callbacks, the pipeline cache, kernel
// overrides, and bind calls that are refused.
#include <unistd.h>
#include <volk.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "allocation_failures.hpp"
#include "device_helpers.hpp"
#include "small_operators.hpp"
#include "support.hpp"

using test::loadVulkan;
using test::SmallJoin;
using test::Tensor;

namespace {
// Expects `call` to throw vkdml::Error with `code` whose message mentions each of `mentions`.
template <typename Call>
void expectError(Call&& call, vkdml::ErrorCode code, const std::vector<std::string>& mentions = {}) {
  try {
    call();
    FAIL("expected a vkdml::Error");
  } catch (const vkdml::Error& e) {
    CHECK_MESSAGE(e.code() == code, e.what());
    for (const auto& m : mentions) CHECK_MESSAGE(std::string(e.what()).find(m) != std::string::npos, e.what());
  }
}

// A Join through `device` end to end: it still works.
void expectWorking(vkdml::Device& device) {
  SmallJoin j;
  vkdml::CompiledOperator op = device.compileOperator(device.createOperator(j.desc()));
  vkdml::Buffer in = device.createBuffer(64), out = device.createBuffer(48);
  float values[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  in.upload(values, 48);
  auto table = op.createBindingTable();
  table.bindInputs({{&in, 0, 24}, {&in, 16, 24}});
  table.bindOutputs({{&out, 0, 48}});
  device.execute(op, table);
  float result[12];
  out.download(result, 48);
  for (int i = 0; i < 12; ++i) REQUIRE(result[i] == values[i < 6 ? i : i - 2]);
}
}  // namespace

TEST_CASE("device: buffers beyond the device's limits are OutOfMemory, and the device still works") {
  vkdml::Device& d = test::device();
  loadVulkan(d);
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(d.physicalDevice(), &memory);
  uint64_t largestHeap = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    largestHeap = std::max<uint64_t>(largestHeap, memory.memoryHeaps[i].size);
  for (uint64_t bytes : {largestHeap + 1, uint64_t(1) << 62, ~uint64_t(0)}) {
    CAPTURE(bytes);
    expectError([&] { d.createBuffer(bytes); }, vkdml::ErrorCode::OutOfMemory, {std::to_string(bytes)});
  }
  expectWorking(d);
}

TEST_CASE("device: submitAndWait passes what the recorder throws through, the device stays usable") {
  vkdml::Device& d = test::device();
  struct Mine {};
  vkdml::Buffer buffer = d.createBuffer(256);
  CHECK_THROWS_AS(d.submitAndWait([&](VkCommandBuffer cmd) {
    loadVulkan(d);
    vkCmdFillBuffer(cmd, buffer.handle(), 0, 256, 0);  // something recorded, then abandoned
    throw Mine{};
  }),
                  Mine);
  CHECK_THROWS_WITH_AS(d.submitAndWait([](VkCommandBuffer) { throw std::runtime_error("the caller's own"); }),
                       "the caller's own", std::runtime_error);
  // Submitting from inside the recorder would wait for itself.
  expectError([&] { d.submitAndWait([&](VkCommandBuffer) { buffer.fill(0, 256); }); },
              vkdml::ErrorCode::InvalidArgument, {"must not submit"});
  // A vkdml::Error from inside the recorder, too.
  SmallJoin j;
  vkdml::CompiledOperator op = d.compileOperator(d.createOperator(j.desc()));
  vkdml::BindingTable unbound = op.createBindingTable();
  expectError([&] { d.submitAndWait([&](VkCommandBuffer cmd) { op.record(cmd, unbound); }); },
              vkdml::ErrorCode::InvalidArgument, {"not bound"});
  // compileOperators on threads, whose uploads would wait for this recorder.
  const std::vector<vkdml::Operator> ops{d.createOperator(j.desc()), d.createOperator(j.desc())};
  expectError([&] { d.submitAndWait([&](VkCommandBuffer) { d.compileOperators(ops, {}, 2); }); },
              vkdml::ErrorCode::InvalidArgument, {"must not submit"});
  // lockQueue: the recorder runs with the queue's lock held.
  expectError([&] { d.submitAndWait([&](VkCommandBuffer) { const auto held = d.lockQueue(); }); },
              vkdml::ErrorCode::InvalidArgument, {"must not submit"});
  expectWorking(d);
}

TEST_CASE("device: what onValidationMessage throws does not cross the driver") {
  auto messages = std::make_shared<std::atomic<int>>(0);
  vkdml::DeviceOptions options;
  options.validation = true;
  options.onValidationMessage = [messages](const char*) {
    ++*messages;
    throw std::runtime_error("thrown by the callback");
  };
  auto d = vkdml::Device::create(options);
  if (!d->info().validationEnabled) {
    MESSAGE("skipped: the validation layers are not installed");
    return;
  }
  loadVulkan(*d);
  auto submit = reinterpret_cast<PFN_vkSubmitDebugUtilsMessageEXT>(
      vkGetInstanceProcAddr(d->instance(), "vkSubmitDebugUtilsMessageEXT"));
  REQUIRE(reinterpret_cast<void*>(submit) != nullptr);
  VkDebugUtilsMessengerCallbackDataEXT data{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT};
  data.pMessage = "a message the test sends";
  submit(d->instance(), VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT, VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
         &data);
  CHECK(*messages == 1);
  CHECK(d->validationMessageCount() == 1);
  expectWorking(*d);
}

namespace {
// Runs `call` with the n-th allocation libvkdml makes failing, for n = 0, 1,
// ... until it makes no more: each failure must be an OutOfMemory
// vkdml::Error and leave `device` working.
template <typename Call>
void underAllocationFailures(const std::string& what, vkdml::Device& device, Call&& call) {
  auto join = test::smallJoin();
  for (long n = 0;; ++n) {
    INFO(what << ", allocation " << n);
    std::string wrong;
    bool threw = false;
    test::failAllocation(n);
    try {
      call();
    } catch (const vkdml::Error& e) {
      threw = true;
      if (e.code() != vkdml::ErrorCode::OutOfMemory) wrong = std::string("not OutOfMemory: ") + e.what();
    } catch (const std::exception& e) {
      threw = true;
      wrong = std::string("not a vkdml::Error: ") + e.what();
    }
    const bool failed = test::allocationFailed();
    REQUIRE_MESSAGE(wrong.empty(), wrong);
    if (!failed) {
      REQUIRE_FALSE(threw);
      return;
    }
    const std::string broken = test::runSmall(device, *join);
    REQUIRE_MESSAGE(broken.empty(), broken);
  }
}
}  // namespace

TEST_CASE("device: a failed host allocation in any entry point is OutOfMemory and leaves the device usable") {
  auto messages = std::make_shared<std::atomic<int>>(0);
  {
    vkdml::DeviceOptions quick;  // no validation layer: instances come and go
    underAllocationFailures("Device::create", *test::sharedDevice(), [&] { vkdml::Device::create(quick); });
    underAllocationFailures("Device::listPhysicalDevices", *test::sharedDevice(),
                            [&] { vkdml::Device::listPhysicalDevices(); });

    auto device = vkdml::Device::create(test::countingOptions(messages));
    vkdml::Device& d = *device;
    std::vector<uint8_t> bytes(4096, 7);
    vkdml::Buffer buffer = d.createBuffer(4096);
    underAllocationFailures("Device::createBuffer", d, [&] { d.createBuffer(4096); });
    underAllocationFailures("Buffer::upload", d, [&] { buffer.upload(bytes.data(), bytes.size()); });
    underAllocationFailures("Buffer::download", d, [&] { buffer.download(bytes.data(), bytes.size()); });
    underAllocationFailures("Buffer::fill", d, [&] { buffer.fill(0, 4096); });
    underAllocationFailures("Device::submitAndWait", d, [&] { d.submitAndWait([](VkCommandBuffer) {}); });
    underAllocationFailures("Device::adopt", d, [&] {
      vkdml::Device::adopt(d.instance(), d.physicalDevice(), d.device(), d.queue(), d.queueFamilyIndex());
    });
    for (auto& op : test::oneOfEach()) {
      underAllocationFailures("validate " + op->name, d, [&] {
        if (vkdml::validate(op->desc)) throw std::logic_error("a valid descriptor rejected");
      });
      underAllocationFailures("Device::createOperator " + op->name, d, [&] { d.createOperator(op->desc); });
      const vkdml::Operator created = d.createOperator(op->desc);
      // The Join compiles from scratch each time: the pipeline cache's misses too.
      underAllocationFailures("Device::compileOperator " + op->name, d, [&] {
        if (op->name == "join") d.trimPipelineCache(0);
        d.compileOperator(created);
      });
      const vkdml::CompiledOperator compiled = d.compileOperator(created);
      underAllocationFailures("CompiledOperator::kernelNames " + op->name, d, [&] { compiled.kernelNames(); });
      underAllocationFailures("CompiledOperator::createBindingTable " + op->name, d,
                              [&] { compiled.createBindingTable(); });
      std::vector<vkdml::Buffer> inputs;
      for (auto& t : op->inputs) {
        inputs.push_back(d.createBuffer(t.bytes.size()));
        inputs.back().upload(t.bytes.data(), t.bytes.size());
      }
      const std::vector<vkdml::BufferBinding> bindings = op->inputBindings(inputs);
      vkdml::Buffer output = d.createBuffer(op->output.bytes.size());
      vkdml::BindingTable table = compiled.createBindingTable();
      underAllocationFailures("BindingTable::bindInputs " + op->name, d, [&] { table.bindInputs(bindings); });
      underAllocationFailures("BindingTable::bindOutputs " + op->name, d, [&] {
        table.bindOutputs({{&output, 0, output.size()}});
      });
      underAllocationFailures("Device::execute " + op->name, d, [&] { d.execute(compiled, table); });
      underAllocationFailures("CompiledOperator::record " + op->name, d,
                              [&] { d.submitAndWait([&](VkCommandBuffer cmd) { compiled.record(cmd, table); }); });
      std::vector<uint8_t> result(output.size());
      output.download(result.data(), result.size());
      CHECK_MESSAGE(result == op->expected.bytes, op->name);
    }
    // Several threads (failures come on this one): the pipelines of a cold cache, then the operators.
    const auto ops = test::oneOfEach();
    std::vector<vkdml::Operator> all;
    for (auto& op : ops) all.push_back(d.createOperator(op->desc));
    underAllocationFailures("Device::compileOperators", d, [&] {
      d.trimPipelineCache(0);
      d.compileOperators(all, {}, 4);
    });
    underAllocationFailures("Device::pipelineCacheData", d, [&] { d.pipelineCacheData(); });
    underAllocationFailures("Device::pipelineCacheStats", d, [&] { d.pipelineCacheStats(); });
    underAllocationFailures("Device::trimPipelineCache", d, [&] { d.trimPipelineCache(1); });
  }  // the validation layer reports any Vulkan object left behind
  CHECK(*messages == 0);
}

TEST_CASE(
    "device: the pipeline cache keeps at most its limit, least recently used out, compiled operators keep theirs") {
  auto messages = std::make_shared<std::atomic<int>>(0);
  {
    vkdml::DeviceOptions options = test::countingOptions(messages);
    options.pipelineCacheLimit = 3;
    auto d = vkdml::Device::create(options);
    const vkdml::CompileOptions portable{vkdml::ConvolutionPath::Portable};  // one pipeline per geometry
    std::vector<std::unique_ptr<test::SmallOperator>> ops;
    std::vector<vkdml::CompiledOperator> compiled;
    for (uint32_t channels : {1, 2, 4, 8, 16, 32}) {  // each tiles differently: a pipeline of its own
      ops.push_back(test::smallConvolution(channels, channels));
      compiled.push_back(d->compileOperator(d->createOperator(ops.back()->desc), portable));
      REQUIRE(compiled.back().kernelNames().size() == 1);
      CHECK(d->pipelineCacheStats().pipelines <= 3);
    }
    auto stats = d->pipelineCacheStats();
    CHECK(stats.pipelines == 3);
    CHECK(stats.misses == 6);
    CHECK(stats.hits == 0);
    // The evicted pipelines live on in the operators compiled with them.
    for (size_t i = 0; i < ops.size(); ++i) CHECK(test::runSmall(*d, compiled[i], *ops[i]) == "");
    // Held: 8, 16, 32 channels. Using 8 makes 16 the least recently used.
    auto compile = [&](size_t i) { return d->compileOperator(d->createOperator(ops[i]->desc), portable); };
    compile(3);
    CHECK(d->pipelineCacheStats().hits == 1);
    compile(0);  // 1 channel again: compiled, 16 dropped
    CHECK(d->pipelineCacheStats().misses == 7);
    compile(3);
    compile(5);
    CHECK(d->pipelineCacheStats().hits == 3);
    compile(4);  // 16 was dropped
    CHECK(d->pipelineCacheStats().misses == 8);
    CHECK(test::runSmall(*d, compile(4), *ops[4]) == "");

    d->trimPipelineCache(1);
    CHECK(d->pipelineCacheStats().pipelines == 1);
    d->trimPipelineCache();
    CHECK(d->pipelineCacheStats().pipelines == 0);
    for (size_t i = 0; i < ops.size(); ++i) CHECK(test::runSmall(*d, compiled[i], *ops[i]) == "");

    // A limit of 0 keeps nothing.
    options.pipelineCacheLimit = 0;
    auto uncached = vkdml::Device::create(options);
    CHECK(test::runSmall(*uncached, *ops[0]) == "");
    CHECK(uncached->pipelineCacheStats().pipelines == 0);
  }
  CHECK(*messages == 0);
}

TEST_CASE("device: pipeline cache data round trip, a stale blob is ignored, a malformed one rejected") {
  auto messages = std::make_shared<std::atomic<int>>(0);
  {
    vkdml::DeviceOptions options = test::countingOptions(messages);
    std::vector<uint8_t> blob;
    auto ops = test::oneOfEach();
    {
      auto first = vkdml::Device::create(options);
      CHECK_FALSE(first->info().pipelineCacheLoaded);
      for (auto& op : ops) REQUIRE(test::runSmall(*first, *op) == "");
      blob = first->pipelineCacheData();
    }
    VkPipelineCacheHeaderVersionOne header;
    REQUIRE(blob.size() >= sizeof header);
    std::memcpy(&header, blob.data(), sizeof header);
    CHECK(header.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE);
    CHECK(header.vendorID == test::device().info().vendorId);

    auto loads = [&](const std::vector<uint8_t>& data) {
      options.pipelineCacheData = data;
      auto d = vkdml::Device::create(options);
      for (auto& op : ops) CHECK(test::runSmall(*d, *op) == "");
      return d->info().pipelineCacheLoaded;
    };
    CHECK(loads(blob));
    std::vector<uint8_t> stale = blob;
    stale[offsetof(VkPipelineCacheHeaderVersionOne, pipelineCacheUUID)] ^= 1;  // another driver version
    CHECK_FALSE(loads(stale));
    stale = blob;
    stale[offsetof(VkPipelineCacheHeaderVersionOne, deviceID)] ^= 1;
    CHECK_FALSE(loads(stale));
    // Cut inside the driver's part: the header still matches; the driver
    // checks the rest, taking what it can (lavapipe) or refusing the blob
    // (NVIDIA), which is then ignored. Either way the device works.
    std::vector<uint8_t> cut(blob.begin(), blob.begin() + std::max(sizeof header, blob.size() / 2));
    loads(cut);

    auto rejected = [&](const std::vector<uint8_t>& data, const std::string& mention) {
      options.pipelineCacheData = data;
      expectError([&] { vkdml::Device::create(options); }, vkdml::ErrorCode::InvalidArgument,
                  {"pipelineCacheData", mention});
    };
    rejected(std::vector<uint8_t>(blob.begin(), blob.begin() + 10), "less than the 32-byte header");
    std::vector<uint8_t> bad = blob;
    bad[0] = 16;  // headerSize
    rejected(bad, "headerSize 16");
    bad = blob;
    bad[4] = 7;  // headerVersion
    rejected(bad, "headerVersion 7");
  }
  CHECK(*messages == 0);
}

namespace {
void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(file.good());
}
}  // namespace

TEST_CASE("device: VKDML_KERNEL_DIR replaces kernels only when built in, and only with valid SPIR-V") {
  auto op = test::smallJoin();
  const std::string kernel =
      test::device().compileOperator(test::device().createOperator(op->desc)).kernelNames().at(0);
  char directory[] = "/tmp/vkdml_kernels_XXXXXX";
  REQUIRE(mkdtemp(directory) != nullptr);
  const std::string path = std::string(directory) + "/" + kernel + ".spv";
  test::ScopedEnvironment environment("VKDML_KERNEL_DIR", directory);
  auto messages = std::make_shared<std::atomic<int>>(0);
  // The SPIR-V magic number, then words that are no module.
  const std::vector<uint8_t> garbage = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4};
#ifndef VKDML_KERNEL_OVERRIDE
  // Not built in (the default): the variable changes nothing.
  writeFile(path, garbage);
  {
    auto d = vkdml::Device::create(test::countingOptions(messages));
    CHECK(test::runSmall(*d, *op) == "");
  }
#else
  struct Rejected {
    std::vector<uint8_t> bytes;
    std::string reason;
  };
  std::vector<uint8_t> large(17u << 20);
  std::memcpy(large.data(), garbage.data(), garbage.size());
  const std::vector<Rejected> rejected = {
      {{}, "holds 0 bytes"},
      {{0x03, 0x02, 0x23, 0x07, 0, 0, 1}, "holds 7 bytes"},
      {{0x07, 0x23, 0x02, 0x03, 0, 0, 1, 0}, "magic number"},
      {garbage, "not valid SPIR-V"},
      {large, "larger than"},
  };
  {
    auto d = vkdml::Device::create(test::countingOptions(messages));
    for (const auto& r : rejected) {
      CAPTURE(r.reason);
      writeFile(path, r.bytes);
      expectError([&] { d->compileOperator(d->createOperator(op->desc)); }, vkdml::ErrorCode::InvalidArgument,
                  {"VKDML_KERNEL_DIR", path, r.reason});
    }
    // The embedded kernel's own SPIR-V is accepted.
    std::ifstream built(VKDML_SPIRV_DIR "/" + kernel + ".spv", std::ios::binary);
    REQUIRE(built.good());
    writeFile(path, std::vector<uint8_t>(std::istreambuf_iterator<char>(built), {}));
    CHECK(test::runSmall(*d, *op) == "");
  }
#endif
  std::remove(path.c_str());
  rmdir(directory);
  CHECK(*messages == 0);
}

TEST_CASE("device: a binding table keeps the buffers it binds alive") {
  // The output's last handle goes before the execution; a buffer allocated
  // afterwards (which could take the freed memory) must not be written.
  vkdml::Device& d = test::device();
  const uint32_t n = 1024;
  test::Flip flip(n);
  vkdml::CompiledOperator op = d.compileOperator(d.createOperator(flip.desc()));
  vkdml::Buffer input = d.createBuffer(n * 4);
  std::vector<uint32_t> data(n);
  for (uint32_t i = 0; i < n; ++i) data[i] = i + 1;
  input.upload(data.data(), n * 4);
  vkdml::BindingTable table = op.createBindingTable();
  table.bindInputs({{&input, 0, n * 4}});
  {
    vkdml::Buffer output = d.createBuffer(n * 4);
    table.bindOutputs({{&output, 0, n * 4}});
  }
  std::vector<vkdml::Buffer> later;
  for (int i = 0; i < 8; ++i) {
    later.push_back(d.createBuffer(n * 4));
    later.back().fill(0xA5A5A5A5u, n * 4);
  }
  d.execute(op, table);
  std::vector<uint32_t> back(n);
  for (auto& b : later) {
    b.download(back.data(), n * 4);
    CHECK(std::all_of(back.begin(), back.end(), [](uint32_t w) { return w == 0xA5A5A5A5u; }));
  }
}

TEST_CASE("device: a rejected bind call leaves the table as it was") {
  SmallJoin j;
  vkdml::Device& d = test::device();
  vkdml::CompiledOperator op = d.compileOperator(d.createOperator(j.desc()));
  vkdml::Buffer a = d.createBuffer(64), b = d.createBuffer(64), c = d.createBuffer(64), out = d.createBuffer(64);
  const float av[6] = {1, 2, 3, 4, 5, 6}, bv[6] = {7, 8, 9, 10, 11, 12}, cv[6] = {-1, -2, -3, -4, -5, -6};
  a.upload(av, 24);
  b.upload(bv, 24);
  c.upload(cv, 24);
  vkdml::BindingTable table = op.createBindingTable();
  table.bindInputs({{&a, 0, 24}, {&b, 0, 24}});
  table.bindOutputs({{&out, 0, 48}});
  // The first binding is valid, the second is not: nothing may change.
  CHECK_THROWS_AS(table.bindInputs({{&c, 0, 24}, {&b, 8, 24}}), vkdml::Error);
  CHECK_THROWS_AS(table.bindOutputs({{&c, 0, 47}}), vkdml::Error);
  d.execute(op, table);
  float result[12];
  out.download(result, 48);
  for (int i = 0; i < 6; ++i) {
    CHECK(result[i] == av[i]);
    CHECK(result[6 + i] == bv[i]);
  }
}

namespace {
// Binds `inputs` and then `output`, and the other way round; both orders
// must reject the overlap, naming the output and the input.
void expectOverlapRejected(vkdml::CompiledOperator& op, const std::vector<vkdml::BufferBinding>& inputs,
                           const vkdml::BufferBinding& output, const std::string& outputName,
                           const std::string& inputName) {
  for (bool inputsFirst : {true, false}) {
    CAPTURE(inputsFirst);
    vkdml::BindingTable table = op.createBindingTable();
    try {
      if (inputsFirst) {
        table.bindInputs(inputs);
        table.bindOutputs({output});
      } else {
        table.bindOutputs({output});
        table.bindInputs(inputs);
      }
      FAIL("an output overlapping " << inputName << " must be rejected");
    } catch (const vkdml::Error& e) {
      INFO(std::string(e.what()));
      CHECK(e.code() == vkdml::ErrorCode::InvalidArgument);
      CHECK(e.field().find(outputName) != std::string::npos);
      CHECK(std::string(e.what()).find(inputName) != std::string::npos);
      CHECK(std::string(e.what()).find("overlap") != std::string::npos);
    }
  }
}
}  // namespace

TEST_CASE("device: an output overlapping an input is rejected, for every operator") {
  vkdml::Device& d = test::device();
  vkdml::Buffer buffer = d.createBuffer(1 << 16);
  const uint32_t n = 4096;
  UINT sizes[1] = {n};
  DML_BUFFER_TENSOR_DESC u32{DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, sizes, nullptr, n * 4, 0};
  DML_TENSOR_DESC vector{DML_TENSOR_TYPE_BUFFER, &u32};

  SUBCASE("DML_SLICE1: the output one element after the input, as out = in[1:] in place would") {
    UINT window[1] = {n - 1}, offsets[1] = {1}, outSizes[1] = {n - 1};
    INT strides[1] = {1};
    DML_BUFFER_TENSOR_DESC outBuffer{
        DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, outSizes, nullptr, (n - 1) * 4, 0};
    DML_TENSOR_DESC outTensor{DML_TENSOR_TYPE_BUFFER, &outBuffer};
    DML_SLICE1_OPERATOR_DESC slice{&vector, &outTensor, 1, offsets, window, strides};
    vkdml::CompiledOperator op = d.compileOperator(d.createOperator({DML_OPERATOR_SLICE1, &slice}));
    expectOverlapRejected(op, {{&buffer, 0, n * 4}}, {&buffer, 16, (n - 1) * 4}, "OutputTensor", "InputTensor");
    // Disjoint ranges of one buffer are fine.
    vkdml::BindingTable table = op.createBindingTable();
    table.bindInputs({{&buffer, 0, n * 4}});
    table.bindOutputs({{&buffer, n * 4, (n - 1) * 4}});
  }
  SUBCASE("DML_JOIN: the output over its second input") {
    UINT outSizes[1] = {2 * n};
    DML_BUFFER_TENSOR_DESC outBuffer{
        DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, outSizes, nullptr, 2 * n * 4, 0};
    DML_TENSOR_DESC outTensor{DML_TENSOR_TYPE_BUFFER, &outBuffer};
    DML_TENSOR_DESC inputs[2] = {vector, vector};
    DML_JOIN_OPERATOR_DESC join{2, inputs, &outTensor, 0};
    vkdml::CompiledOperator op = d.compileOperator(d.createOperator({DML_OPERATOR_JOIN, &join}));
    expectOverlapRejected(op, {{&buffer, 0, n * 4}, {&buffer, 2 * n * 4, n * 4}}, {&buffer, 6 * n, 2 * n * 4},
                          "OutputTensor", "InputTensors[1]");
  }
  SUBCASE("DML_SCATTER_ND: the output over the updates, or shifted from the input") {
    UINT one[1] = {1}, updateSizes[1] = {1};
    DML_BUFFER_TENSOR_DESC indexBuffer{DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, one, nullptr, 4, 0};
    DML_BUFFER_TENSOR_DESC updateBuffer{
        DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 1, updateSizes, nullptr, 4, 0};
    DML_TENSOR_DESC indices{DML_TENSOR_TYPE_BUFFER, &indexBuffer}, updates{DML_TENSOR_TYPE_BUFFER, &updateBuffer};
    DML_SCATTER_ND_OPERATOR_DESC scatter{&vector, &indices, &updates, &vector, 1, 1};
    vkdml::CompiledOperator op = d.compileOperator(d.createOperator({DML_OPERATOR_SCATTER_ND, &scatter}));
    const vkdml::BufferBinding input{&buffer, 0, n * 4}, index{&buffer, n * 4, 16};
    expectOverlapRejected(op, {input, index, {&buffer, n * 4 + 16, 16}}, {&buffer, n * 4 + 16, n * 4}, "OutputTensor",
                          "UpdatesTensor");
    expectOverlapRejected(op, {input, index, {&buffer, n * 4 + 16, 16}}, {&buffer, 16, n * 4}, "OutputTensor",
                          "InputTensor");
    // The message says what would run in place.
    vkdml::BindingTable rejected = op.createBindingTable();
    rejected.bindInputs({input, index, {&buffer, n * 4 + 16, 16}});
    try {
      rejected.bindOutputs({{&buffer, 16, n * 4}});
      FAIL("an output 16 bytes past its input must be rejected");
    } catch (const vkdml::Error& e) {
      CHECK(std::string(e.what()).find("only OutputTensor bound at the address of InputTensor runs in place") !=
            std::string::npos);
    }
    // At the input's address: in place, the ranges' lengths as they are.
    vkdml::BindingTable table = op.createBindingTable();
    table.bindInputs({input, index, {&buffer, n * 4 + 16, 16}});
    table.bindOutputs({input});
    table.bindInputs({{&buffer, 0, n * 4 + 16}, index, {&buffer, n * 4 + 16, 16}});  // over the indices too
    table.bindOutputs({input});
  }
  SUBCASE("DML_DIAGONAL_MATRIX1: the output over its input, even exactly") {
    UINT square[2] = {64, 64};
    DML_BUFFER_TENSOR_DESC matrix{DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 2, square, nullptr, n * 4, 0};
    DML_TENSOR_DESC tensor{DML_TENSOR_TYPE_BUFFER, &matrix};
    DML_DIAGONAL_MATRIX1_OPERATOR_DESC diagonal{&tensor, &tensor, DML_TENSOR_DATA_TYPE_UINT32, {}, 0, 1};
    vkdml::CompiledOperator op = d.compileOperator(d.createOperator({DML_OPERATOR_DIAGONAL_MATRIX1, &diagonal}));
    expectOverlapRejected(op, {{&buffer, 0, n * 4}}, {&buffer, 0, n * 4}, "OutputTensor", "InputTensor");
  }
  SUBCASE("DML_CONVOLUTION_INTEGER: the output over the filter") {
    UINT inSizes[4] = {1, 4, 8, 8}, filterSizes[4] = {4, 4, 1, 1}, outSizes[4] = {1, 4, 8, 8};
    DML_BUFFER_TENSOR_DESC inBuffer{DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_FLAG_NONE, 4, inSizes, nullptr, 256, 0};
    DML_BUFFER_TENSOR_DESC filterBuffer{
        DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_FLAG_NONE, 4, filterSizes, nullptr, 16, 0};
    DML_BUFFER_TENSOR_DESC outBuffer{DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_FLAG_NONE, 4, outSizes, nullptr, 1024, 0};
    DML_TENSOR_DESC in{DML_TENSOR_TYPE_BUFFER, &inBuffer}, filter{DML_TENSOR_TYPE_BUFFER, &filterBuffer},
        out{DML_TENSOR_TYPE_BUFFER, &outBuffer};
    const UINT ones[2] = {1, 1}, zeros[2] = {0, 0};
    DML_CONVOLUTION_INTEGER_OPERATOR_DESC conv{&in, nullptr, &filter, nullptr, &out, 2, ones, ones, zeros, zeros, 1};
    vkdml::CompiledOperator op = d.compileOperator(d.createOperator({DML_OPERATOR_CONVOLUTION_INTEGER, &conv}));
    expectOverlapRejected(op, {{&buffer, 0, 256}, {nullptr, 0, 0}, {&buffer, 1024, 16}, {nullptr, 0, 0}},
                          {&buffer, 512, 1024}, "OutputTensor", "FilterTensor");
  }
}
