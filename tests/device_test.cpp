// The runtime around the operators: device selection, buffers, binding
// tables, caller-owned command buffers, adopted devices.
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

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

// Every test counts a validation message as a failure, which means nothing
// where the layers are missing: that is a failure too, unless turned off.
TEST_CASE("device: the tests run with the validation layers on (VKDML_VALIDATION=0 turns them off)") {
  const char* env = std::getenv("VKDML_VALIDATION");
  if (env && std::string(env) == "0") {
    MESSAGE("skipped: VKDML_VALIDATION=0");
    return;
  }
  INFO("install the Khronos validation layer (vulkan-validationlayers, ./dev.sh deps) or set VKDML_VALIDATION=0");
  CHECK(test::device().info().validationEnabled);
}

TEST_CASE("device: selection by index and by name substring") {
  std::vector<std::string> names = vkdml::Device::listPhysicalDevices();
  REQUIRE_FALSE(names.empty());
  const std::string current = test::device().info().name;
  size_t index = std::find(names.begin(), names.end(), current) - names.begin();
  REQUIRE(index < names.size());

  vkdml::DeviceOptions byIndex;
  byIndex.selector = std::to_string(index);
  CHECK(vkdml::Device::create(byIndex)->info().name == current);
  vkdml::DeviceOptions byName;
  byName.selector = lower(current.substr(0, std::min<size_t>(current.size(), 6)));
  CHECK(vkdml::Device::create(byName)->info().name.find(current.substr(0, 6)) == 0);

  vkdml::DeviceOptions none;
  none.selector = "no such device";
  try {
    vkdml::Device::create(none);
    FAIL("a selector that matches nothing must be an error");
  } catch (const vkdml::Error& e) {
    CHECK(e.code() == vkdml::ErrorCode::InvalidArgument);
    CHECK(std::string(e.what()).find(current) != std::string::npos);  // lists the devices
  }
}

TEST_CASE("device: buffers upload, download and fill, ranges are checked") {
  vkdml::Buffer buffer = test::device().createBuffer(1000);
  CHECK(buffer.size() == 1000);
  CHECK(buffer.address() != 0);
  std::vector<uint8_t> data(600);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13);
  buffer.fill(0x01020304u, 1000 & ~3u);
  buffer.upload(data.data(), data.size(), 200);
  std::vector<uint8_t> back(1000);
  buffer.download(back.data(), back.size());
  CHECK(std::equal(data.begin(), data.end(), back.begin() + 200));
  CHECK(back[0] == 0x04);
  CHECK(back[199] == 0x01);
  CHECK_THROWS_AS(buffer.upload(data.data(), data.size(), 401), vkdml::Error);
  CHECK_THROWS_AS(buffer.download(back.data(), 8, 996), vkdml::Error);
  CHECK_THROWS_AS(buffer.fill(0, 4, 2), vkdml::Error);
  CHECK_THROWS_AS(test::device().createBuffer(0), vkdml::Error);
}

TEST_CASE("device: binding tables check every binding") {
  SmallJoin j;
  vkdml::Device& d = test::device();
  vkdml::CompiledOperator op = d.compileOperator(d.createOperator(j.desc()));
  vkdml::Buffer buffer = d.createBuffer(4096);
  vkdml::BindingTable table = op.createBindingTable();
  auto expectBindError = [](auto&& call, const std::string& mention) {
    try {
      call();
      FAIL("expected a binding error mentioning " << mention);
    } catch (const vkdml::Error& e) {
      CHECK(e.code() == vkdml::ErrorCode::InvalidArgument);
      CHECK_MESSAGE(std::string(e.what()).find(mention) != std::string::npos, e.what());
      CHECK(std::string(e.what()).find("DML_JOIN") != std::string::npos);
    }
  };
  expectBindError([&] { table.bindInputs({{&buffer, 0, 24}}); }, "expects 2 bindings, got 1");
  expectBindError([&] { table.bindInputs({{&buffer, 0, 24}, {nullptr, 0, 0}}); }, "InputTensors[1]");
  expectBindError([&] { table.bindInputs({{&buffer, 8, 24}, {&buffer, 64, 24}}); }, "multiple of 16, not 8");
  expectBindError([&] { table.bindInputs({{&buffer, 0, 20}, {&buffer, 64, 24}}); }, "TotalTensorSizeInBytes = 24");
  expectBindError([&] { table.bindInputs({{&buffer, 0, 24}, {&buffer, 4080, 24}}); }, "exceeds the buffer's 4096");
  expectBindError([&] { table.bindOutputs({{&buffer, 0, 47}}); }, "OutputTensor");
  CHECK_THROWS_AS(op.record(VK_NULL_HANDLE, table), vkdml::Error);  // no command buffer
  // Executing with nothing bound is an error, not a fault.
  expectBindError([&] { d.execute(op, table); }, "not bound");
  // A table of another compiled operator.
  vkdml::CompiledOperator other = d.compileOperator(d.createOperator(j.desc()));
  vkdml::BindingTable foreign = other.createBindingTable();
  expectBindError([&] { d.execute(op, foreign); }, "another compiled operator");
  // A buffer of another device.
  auto second = vkdml::Device::create();
  vkdml::Buffer elsewhere = second->createBuffer(4096);
  expectBindError([&] { table.bindInputs({{&elsewhere, 0, 24}, {&buffer, 64, 24}}); }, "another device");
}

TEST_CASE("device: the descriptor's arrays may be freed once the operator exists") {
  vkdml::Operator op;
  {
    auto j = std::make_unique<SmallJoin>();
    op = test::device().createOperator(j->desc());
    std::fill(j->a.sizes.begin(), j->a.sizes.end(), 0xDEAD);  // scribble before freeing
    std::fill(j->out.sizes.begin(), j->out.sizes.end(), 0xBEEF);
  }
  vkdml::CompiledOperator compiled = test::device().compileOperator(op);
  vkdml::Buffer in = test::device().createBuffer(64), out = test::device().createBuffer(64);
  float a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  in.upload(a, 48);
  auto table = compiled.createBindingTable();
  table.bindInputs({{&in, 0, 24}, {&in, 16, 32}});  // second input: elements 4..9
  table.bindOutputs({{&out, 0, 48}});
  test::device().execute(compiled, table);
  float result[12];
  out.download(result, 48);
  const float expected[12] = {1, 2, 3, 4, 5, 6, 5, 6, 7, 8, 9, 10};
  for (int i = 0; i < 12; ++i) CHECK(result[i] == expected[i]);
}

TEST_CASE("device: operators record into a caller-owned command buffer, many in one submit") {
  vkdml::Device& d = test::device();
  loadVulkan(d);
  // out = in[::-1] three times over, chained: a -> b -> c -> a.
  const uint32_t n = 4096;
  test::Flip flip(n);
  vkdml::CompiledOperator op = d.compileOperator(d.createOperator(flip.desc()));
  vkdml::Buffer a = d.createBuffer(n * 4), b = d.createBuffer(n * 4), c = d.createBuffer(n * 4);
  std::vector<uint32_t> data(n);
  for (uint32_t i = 0; i < n; ++i) data[i] = i * 3 + 1;
  a.upload(data.data(), n * 4);
  vkdml::Buffer* chain[4] = {&a, &b, &c, &a};
  std::vector<vkdml::BindingTable> tables;
  for (int i = 0; i < 3; ++i) {
    tables.push_back(op.createBindingTable());
    tables.back().bindInputs({{chain[i], 0, n * 4}});
    tables.back().bindOutputs({{chain[i + 1], 0, n * 4}});
  }
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.queueFamilyIndex = d.queueFamilyIndex();
  VkCommandPool pool = VK_NULL_HANDLE;
  REQUIRE(vkCreateCommandPool(d.device(), &poolInfo, nullptr, &pool) == VK_SUCCESS);
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = pool;
  allocate.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  REQUIRE(vkAllocateCommandBuffers(d.device(), &allocate, &cmd) == VK_SUCCESS);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(cmd, &begin);
  for (int i = 0; i < 3; ++i) {
    op.record(cmd, tables[i]);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};  // the caller orders its dispatches
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
  }
  vkEndCommandBuffer(cmd);
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  vkCreateFence(d.device(), &fenceInfo, nullptr, &fence);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  REQUIRE(vkQueueSubmit(d.queue(), 1, &submit, fence) == VK_SUCCESS);
  REQUIRE(vkWaitForFences(d.device(), 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
  vkDestroyFence(d.device(), fence, nullptr);
  vkDestroyCommandPool(d.device(), pool, nullptr);
  std::vector<uint32_t> result(n);
  a.download(result.data(), n * 4);
  for (uint32_t i = 0; i < n; ++i) REQUIRE(result[i] == data[n - 1 - i]);  // three flips = one flip
}

TEST_CASE("device: adopting an application's instance, device and queue") {
  vkdml::Device& base = test::device();  // borrow its instance and physical device
  loadVulkan(base);
  VkPhysicalDeviceBufferDeviceAddressFeatures address{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  address.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  storage8.storageBuffer8BitAccess = VK_TRUE;
  storage8.pNext = &address;
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  storage16.storageBuffer16BitAccess = VK_TRUE;
  storage16.pNext = &storage8;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.features.shaderInt64 = VK_TRUE;
  features.pNext = &storage16;
  float priority = 1;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = base.queueFamilyIndex();
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &features;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  VkDevice appDevice = VK_NULL_HANDLE;
  REQUIRE(vkCreateDevice(base.physicalDevice(), &info, nullptr, &appDevice) == VK_SUCCESS);
  VolkDeviceTable table;
  volkLoadDeviceTable(&table, appDevice);
  VkQueue queue = VK_NULL_HANDLE;
  table.vkGetDeviceQueue(appDevice, base.queueFamilyIndex(), 0, &queue);
  {
    auto adopted =
        vkdml::Device::adopt(base.instance(), base.physicalDevice(), appDevice, queue, base.queueFamilyIndex());
    CHECK(adopted->device() == appDevice);
    SmallJoin j;
    vkdml::CompiledOperator op = adopted->compileOperator(adopted->createOperator(j.desc()));
    vkdml::Buffer in = adopted->createBuffer(64), out = adopted->createBuffer(48);
    float values[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    in.upload(values, 48);
    auto bindings = op.createBindingTable();
    bindings.bindInputs({{&in, 0, 24}, {&in, 0, 24}});
    bindings.bindOutputs({{&out, 0, 48}});
    adopted->execute(op, bindings);
    float result[12];
    out.download(result, 48);
    for (int i = 0; i < 12; ++i) CHECK(result[i] == values[i % 6]);
  }  // the adopted Device releases only what it created
  table.vkDestroyDevice(appDevice, nullptr);
}

TEST_CASE("device: operator descriptors of unknown or unsupported types are rejected") {
  DML_OPERATOR_DESC slice{DML_OPERATOR_SLICE, nullptr};
  auto error = vkdml::validate(slice);
  REQUIRE(error.has_value());
  CHECK(error->field() == "Desc");
  int dummy = 0;
  slice.Desc = &dummy;
  error = vkdml::validate(slice);
  REQUIRE(error.has_value());
  CHECK(error->code() == vkdml::ErrorCode::Unsupported);
  CHECK(std::string(error->what()).find("60") != std::string::npos);
}
