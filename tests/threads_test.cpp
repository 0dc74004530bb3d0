// The thread-safety contract (docs/errors-and-threads.md, "Threads"): one
// Device shared by many threads, each creating, compiling, binding,
// executing and destroying operators of every type, through the shared
// pipeline cache while it evicts, and recording into command buffers of its
// own; Devices created and destroyed on several threads at once; validation
// messages counted from many threads; threads that need a pipeline another
// is creating, with no cache to keep it. ./dev.sh tsan runs these under
// ThreadSanitizer.
#include <volk.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

#include "device_helpers.hpp"
#include "small_operators.hpp"

namespace {

// What went wrong on any thread, reported by the test's own thread (doctest's
// REQUIRE must not throw on other threads).
struct Failures {
  std::mutex mutex;
  std::vector<std::string> list;
  void add(const std::string& what) {
    if (what.empty()) return;
    std::lock_guard<std::mutex> lock(mutex);
    list.push_back(what);
  }
  void check() {
    for (const auto& f : list) FAIL_CHECK(f);
    CHECK(list.empty());
  }
};

// Runs `compiled` through a command buffer this thread records itself, from
// a pool of its own, submitted under Device::lockQueue.
std::string recordAndSubmit(vkdml::Device& device, VkCommandPool pool, const vkdml::CompiledOperator& compiled,
                            test::SmallOperator& op) {
  try {
    std::vector<vkdml::Buffer> inputs;
    for (auto& t : op.inputs) {
      inputs.push_back(device.createBuffer(t.bytes.size()));
      inputs.back().upload(t.bytes.data(), t.bytes.size());
    }
    vkdml::Buffer output = device.createBuffer(op.output.bytes.size());
    vkdml::BindingTable table = compiled.createBindingTable();
    table.bindInputs(op.inputBindings(inputs));
    table.bindOutputs({{&output, 0, output.size()}});
    VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    allocate.commandPool = pool;
    allocate.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    if (vkAllocateCommandBuffers(device.device(), &allocate, &cmd) != VK_SUCCESS) return "vkAllocateCommandBuffers";
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &begin);
    compiled.record(cmd, table);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
    vkEndCommandBuffer(cmd);
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    vkCreateFence(device.device(), &fenceInfo, nullptr, &fence);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    VkResult submitted;
    {
      auto lock = device.lockQueue();
      submitted = vkQueueSubmit(device.queue(), 1, &submit, fence);
    }
    if (submitted == VK_SUCCESS) vkWaitForFences(device.device(), 1, &fence, VK_TRUE, UINT64_MAX);
    vkDestroyFence(device.device(), fence, nullptr);
    vkFreeCommandBuffers(device.device(), pool, 1, &cmd);
    if (submitted != VK_SUCCESS) return "vkQueueSubmit";
    std::vector<uint8_t> result(output.size());
    output.download(result.data(), result.size());
    return result == op.expected.bytes ? "" : op.name + " (recorded): wrong output";
  } catch (const std::exception& e) {
    return op.name + " (recorded): " + e.what();
  }
}

}  // namespace

TEST_CASE("threads: one Device shared by 8 threads: create, compile, bind, execute, destroy") {
  constexpr int kThreads = 8, kRounds = 6;
  auto messages = std::make_shared<std::atomic<int>>(0);
  Failures failures;
  {
    vkdml::DeviceOptions options = test::countingOptions(messages);
    options.pipelineCacheLimit = 4;  // fewer than the workload's pipelines: evictions while they are in use
    auto device = vkdml::Device::create(options);
    REQUIRE(volkInitialize() == VK_SUCCESS);  // the test's own Vulkan calls, loaded before the threads start
    volkLoadInstanceOnly(device->instance());
    volkLoadDevice(device->device());
    // Compiled once, used by every thread through tables of its own.
    auto shared = test::smallScatter();
    const vkdml::CompiledOperator sharedCompiled = device->compileOperator(device->createOperator(shared->desc));

    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        VkCommandPool pool = VK_NULL_HANDLE;  // command pools are externally synchronized: one per thread
        VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        poolInfo.queueFamilyIndex = device->queueFamilyIndex();
        if (vkCreateCommandPool(device->device(), &poolInfo, nullptr, &pool) != VK_SUCCESS)
          return failures.add("vkCreateCommandPool");
        try {
          for (int round = 0; round < kRounds; ++round) {
            auto ops = test::oneOfEach();
            ops.push_back(test::smallConvolution(1u << ((t + round) % 5), uint32_t(t)));  // distinct geometries
            for (auto& op : ops) {
              if ((t + round) % 2) {
                failures.add(test::runSmall(*device, *op));
              } else {
                const auto compiled = device->compileOperator(device->createOperator(op->desc));
                failures.add(recordAndSubmit(*device, pool, compiled, *op));
              }
            }
            failures.add(test::runSmall(*device, sharedCompiled, *shared));
            if (t == 0) device->trimPipelineCache(size_t(round % 3));
            if (t == 1) device->pipelineCacheData();
            if (device->pipelineCacheStats().pipelines > options.pipelineCacheLimit)
              failures.add("the pipeline cache exceeds its limit");
          }
        } catch (const std::exception& e) {
          failures.add(e.what());
        }
        vkDestroyCommandPool(device->device(), pool, nullptr);
      });
    for (auto& thread : threads) thread.join();
    CHECK(device->validationMessageCount() == 0);
  }
  failures.check();
  CHECK(*messages == 0);
}

TEST_CASE("threads: Devices created and destroyed on several threads at once") {
  auto messages = std::make_shared<std::atomic<int>>(0);
  Failures failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      try {
        for (int round = 0; round < 3; ++round) {
          auto device = vkdml::Device::create(test::countingOptions(messages));
          auto op = test::smallJoin();
          failures.add(test::runSmall(*device, *op));
        }
      } catch (const std::exception& e) {
        failures.add(e.what());
      }
    });
  threads.emplace_back([&] {
    try {
      for (int round = 0; round < 3; ++round)
        if (vkdml::Device::listPhysicalDevices().empty()) failures.add("no physical device listed");
    } catch (const std::exception& e) {
      failures.add(e.what());
    }
  });
  for (auto& thread : threads) thread.join();
  failures.check();
  CHECK(*messages == 0);
}

TEST_CASE("threads: validation messages from many threads are each counted once") {
  constexpr int kThreads = 8, kMessages = 500;
  auto received = std::make_shared<std::atomic<int>>(0);
  vkdml::DeviceOptions options;
  options.validation = true;
  options.onValidationMessage = [received](const char*) { ++*received; };
  auto device = vkdml::Device::create(options);
  if (!device->info().validationEnabled) {
    MESSAGE("skipped: the validation layers are not installed");
    return;
  }
  REQUIRE(volkInitialize() == VK_SUCCESS);
  volkLoadInstanceOnly(device->instance());
  auto submit = reinterpret_cast<PFN_vkSubmitDebugUtilsMessageEXT>(
      vkGetInstanceProcAddr(device->instance(), "vkSubmitDebugUtilsMessageEXT"));
  REQUIRE(reinterpret_cast<void*>(submit) != nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      VkDebugUtilsMessengerCallbackDataEXT data{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT};
      data.pMessage = "a message the test sends";
      for (int i = 0; i < kMessages; ++i)
        submit(device->instance(), VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT, &data);
    });
  for (auto& thread : threads) thread.join();
  CHECK(*received == kThreads * kMessages);
  CHECK(device->validationMessageCount() == uint64_t(kThreads * kMessages));
}

TEST_CASE("threads: compileOperators compiles side by side, each pipeline once, results in order") {
  auto messages = std::make_shared<std::atomic<int>>(0);
  auto device = vkdml::Device::create(test::countingOptions(messages));
  // Each operator twice over, so that threads ask for the same pipelines at
  // once: each must be created once (the others wait for it).
  std::vector<std::unique_ptr<test::SmallOperator>> small = test::oneOfEach();
  for (uint32_t c = 1; c <= 8; c *= 2) small.push_back(test::smallConvolution(c, c));
  std::vector<vkdml::Operator> ops;
  for (int copy = 0; copy < 2; ++copy)
    for (auto& op : small) ops.push_back(device->createOperator(op->desc));
  const std::vector<vkdml::CompiledOperator> compiled = device->compileOperators(ops, {}, 8);
  REQUIRE(compiled.size() == ops.size());
  const uint64_t misses = device->pipelineCacheStats().misses;
  // The same operators one at a time on a fresh Device compile as many.
  auto serial = vkdml::Device::create(test::countingOptions(messages));
  for (auto& op : small) serial->compileOperator(serial->createOperator(op->desc));
  CHECK(misses == serial->pipelineCacheStats().misses);
  for (size_t i = 0; i < compiled.size(); ++i) {
    test::SmallOperator& op = *small[i % small.size()];
    CHECK(test::runSmall(*device, compiled[i], op) == "");
  }
  // Without a pipeline cache, the call still compiles each pipeline once:
  // it compiles the distinct ones first, then builds the operators on them.
  vkdml::DeviceOptions uncached = test::countingOptions(messages);
  uncached.pipelineCacheLimit = 0;
  auto noCache = vkdml::Device::create(uncached);
  std::vector<vkdml::Operator> noCacheOps;
  for (int copy = 0; copy < 2; ++copy)
    for (auto& op : small) noCacheOps.push_back(noCache->createOperator(op->desc));
  const std::vector<vkdml::CompiledOperator> noCacheCompiled = noCache->compileOperators(noCacheOps, {}, 8);
  CHECK(noCache->pipelineCacheStats().misses == misses);
  CHECK(noCache->pipelineCacheStats().pipelines == 0);
  for (size_t i = 0; i < noCacheCompiled.size(); ++i)
    CHECK(test::runSmall(*noCache, noCacheCompiled[i], *small[i % small.size()]) == "");
  // An empty operator fails the call with compileOperator's error.
  ops.insert(ops.begin() + 3, vkdml::Operator());
  try {
    device->compileOperators(ops, {}, 4);
    FAIL("an empty operator was compiled");
  } catch (const vkdml::Error& e) {
    CHECK(std::string(e.what()).find("the operator is empty") != std::string::npos);
  }
  CHECK(device->validationMessageCount() == 0);
  CHECK(*messages == 0);
}

TEST_CASE("threads: with no pipeline cache, threads that need a pipeline being created take it") {
  constexpr int kThreads = 8;
  auto messages = std::make_shared<std::atomic<int>>(0);
  vkdml::DeviceOptions options = test::countingOptions(messages);
  options.pipelineCacheLimit = 0;
  auto device = vkdml::Device::create(options);
  auto conv = test::smallConvolution(4, 4);
  const vkdml::Operator op = device->createOperator(conv->desc);
  Failures failures;
  std::atomic<int> waiting{0};
  std::vector<vkdml::CompiledOperator> compiled(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ++waiting;
      while (waiting < kThreads) std::this_thread::yield();  // all ask at once
      try {
        compiled[t] = device->compileOperator(op);
      } catch (const std::exception& e) {
        failures.add(e.what());
      }
    });
  for (auto& thread : threads) thread.join();
  failures.check();
  // Before, a thread that waited for a pipeline compiled it again once the
  // creator was done (the cache keeps none to find): kThreads times each of
  // the operator's pipelines. Asked at once, some wait and take the creator's.
  auto alone = vkdml::Device::create(options);
  alone->compileOperator(alone->createOperator(conv->desc));
  const uint64_t perOperator = alone->pipelineCacheStats().misses;
  const vkdml::Device::PipelineCacheStats stats = device->pipelineCacheStats();
  CHECK(stats.pipelines == 0);
  CHECK(stats.misses + stats.hits == kThreads * perOperator);
  CHECK(stats.misses < kThreads * perOperator);
  for (const auto& c : compiled) CHECK(test::runSmall(*device, c, *conv) == "");
  CHECK(device->validationMessageCount() == 0);
  CHECK(*messages == 0);
}
