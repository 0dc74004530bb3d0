// The lavapipe GEMM probe (README.md beside it): times probe.comp and
// probe3.comp on a 784 x 64 x 576 int8 GEMM and checks every element.
#include <vulkan/vulkan.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>
#define CK(x)                       \
  do {                              \
    VkResult r_ = (x);              \
    if (r_) {                       \
      printf("%s -> %d\n", #x, r_); \
      exit(1);                      \
    }                               \
  } while (0)
VkDevice dev;
VkPhysicalDevice pd;
uint32_t memType(uint32_t bits) {
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
    if ((bits >> i & 1) && (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) return i;
  exit(2);
}
struct Buf {
  VkBuffer b;
  VkDeviceMemory m;
  void* p;
};
Buf mk(VkDeviceSize size, VkBufferUsageFlags u) {
  Buf r;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = u;
  CK(vkCreateBuffer(dev, &bi, 0, &r.b));
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(dev, r.b, &mr);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = mr.size;
  ai.memoryTypeIndex = memType(mr.memoryTypeBits);
  CK(vkAllocateMemory(dev, &ai, 0, &r.m));
  CK(vkBindBufferMemory(dev, r.b, r.m, 0));
  CK(vkMapMemory(dev, r.m, 0, size, 0, &r.p));
  return r;
}
int main(int argc, char** argv) {
  const char* spv = argv[1];
  int variant = atoi(argv[2]);
  uint32_t NB = atoi(argv[3]);
  uint32_t TM = argc > 4 ? atoi(argv[4]) : 1;
  const uint32_t M = 784, N = 64, K = 576, reps = 5;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  VkApplicationInfo ai{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  ai.apiVersion = VK_API_VERSION_1_2;
  ci.pApplicationInfo = &ai;
  VkInstance in;
  CK(vkCreateInstance(&ci, 0, &in));
  uint32_t n = 1;
  vkEnumeratePhysicalDevices(in, &n, &pd);
  float prio = 1;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueCount = 1;
  qi.pQueuePriorities = &prio;
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  CK(vkCreateDevice(pd, &di, 0, &dev));
  VkQueue q;
  vkGetDeviceQueue(dev, 0, 0, &q);
  Buf A = mk(M * K, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), C = mk(M * N * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  const uint32_t chunks = N / NB;
  const VkDeviceSize bChunk = 65536;
  Buf B = mk(bChunk * chunks, variant == 3 ? VK_BUFFER_USAGE_STORAGE_BUFFER_BIT : VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  std::vector<int8_t> a(M * K), b(N * K);
  for (auto& x : a) x = rand();
  for (auto& x : b) x = rand();
  memcpy(A.p, a.data(), a.size());
  for (uint32_t ch = 0; ch < chunks; ++ch) {
    char* base = (char*)B.p + (variant == 3 ? ch * NB * K : ch * bChunk);
    for (uint32_t j = 0; j < NB; ++j)
      for (uint32_t k = 0; k < K; ++k) {
        int8_t v = b[(ch * NB + j) * K + k];
        if (variant == 1)
          ((float*)base)[j * K + k] = v;
        else
          ((int8_t*)base)[j * K + k] = v;
      }
  }
  std::ifstream f(spv, std::ios::binary);
  std::vector<char> code((std::istreambuf_iterator<char>(f)), {});
  VkShaderModuleCreateInfo si{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  si.codeSize = code.size();
  si.pCode = (uint32_t*)code.data();
  VkShaderModule sm;
  CK(vkCreateShaderModule(dev, &si, 0, &sm));
  VkDescriptorSetLayoutBinding bd[3] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT},
      {1, variant == 3 ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1,
       VK_SHADER_STAGE_COMPUTE_BIT},
      {2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT}};
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = 3;
  li.pBindings = bd;
  VkDescriptorSetLayout dsl;
  CK(vkCreateDescriptorSetLayout(dev, &li, 0, &dsl));
  VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, 12};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &dsl;
  pli.pushConstantRangeCount = 1;
  pli.pPushConstantRanges = &pr;
  VkPipelineLayout pl;
  CK(vkCreatePipelineLayout(dev, &pli, 0, &pl));
  uint32_t spec[3] = {K, NB, TM};
  VkSpecializationMapEntry me[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
  VkSpecializationInfo spi{variant == 3 ? 3u : 2u, me, variant == 3 ? 12u : 8u, spec};
  VkComputePipelineCreateInfo cpi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpi.stage = {
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, 0, 0, VK_SHADER_STAGE_COMPUTE_BIT, sm, "main", &spi};
  cpi.layout = pl;
  VkPipeline pipe;
  CK(vkCreateComputePipelines(dev, 0, 1, &cpi, 0, &pipe));
  VkDescriptorPoolSize ps[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3 * chunks},
                                {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, chunks}};
  VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.maxSets = chunks;
  dpi.poolSizeCount = 2;
  dpi.pPoolSizes = ps;
  VkDescriptorPool dp;
  CK(vkCreateDescriptorPool(dev, &dpi, 0, &dp));
  std::vector<VkDescriptorSet> sets(chunks);
  for (uint32_t ch = 0; ch < chunks; ++ch) {
    VkDescriptorSetAllocateInfo dai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dai.descriptorPool = dp;
    dai.descriptorSetCount = 1;
    dai.pSetLayouts = &dsl;
    CK(vkAllocateDescriptorSets(dev, &dai, &sets[ch]));
    VkDescriptorBufferInfo bi[3] = {{A.b, 0, VK_WHOLE_SIZE},
                                    {B.b, variant == 3 ? 0 : ch * bChunk, variant == 3 ? VK_WHOLE_SIZE : bChunk},
                                    {C.b, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[3];
    for (int i = 0; i < 3; ++i) {
      w[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w[i].dstSet = sets[ch];
      w[i].dstBinding = i;
      w[i].descriptorCount = 1;
      w[i].descriptorType = bd[i].descriptorType;
      w[i].pBufferInfo = &bi[i];
    }
    vkUpdateDescriptorSets(dev, 3, w, 0, 0);
  }
  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool cp;
  CK(vkCreateCommandPool(dev, &cpci, 0, &cp));
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = cp;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cb;
  CK(vkAllocateCommandBuffers(dev, &cbai, &cb));
  VkCommandBufferBeginInfo bbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CK(vkBeginCommandBuffer(cb, &bbi));
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  for (uint32_t ch = 0; ch < chunks; ++ch) {
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &sets[ch], 0, 0);
    uint32_t pc[3] = {M, N, ch * NB};
    vkCmdPushConstants(cb, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 12, pc);
    vkCmdDispatch(cb, (M + 64 * TM - 1) / (64 * TM), 1, 1);
  }
  CK(vkEndCommandBuffer(cb));
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fe;
  CK(vkCreateFence(dev, &fi, 0, &fe));
  double best = 1e9;
  for (uint32_t r = 0; r < reps + 1; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    VkSubmitInfo sub{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    sub.commandBufferCount = 1;
    sub.pCommandBuffers = &cb;
    CK(vkQueueSubmit(q, 1, &sub, fe));
    CK(vkWaitForFences(dev, 1, &fe, 1, ~0ull));
    vkResetFences(dev, 1, &fe);
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (r) best = std::min(best, us);
  }
  // check
  int bad = 0;
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t nn = 0; nn < N; ++nn) {
      int s = 0;
      for (uint32_t k = 0; k < K; ++k) s += a[m * K + k] * b[nn * K + k];
      if (s != ((int*)C.p)[m * N + nn]) ++bad;
    }
  printf("variant %d NB %u TM %u: %.1f us, %.4f TOPS, %d wrong\n", variant, NB, TM, best, 2.0 * M * N * K / best * 1e-6,
         bad);
}
