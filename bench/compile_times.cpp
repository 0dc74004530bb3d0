#include "compile_times.hpp"

#include <chrono>
#include <cstdio>

namespace bench {

namespace {
// Milliseconds of each compile, in order.
std::vector<double> compileAll(vkdml::Device& device, const std::vector<Case*>& cases) {
  std::vector<double> ms;
  for (Case* c : cases) {
    const auto start = std::chrono::steady_clock::now();
    device.compileOperator(device.createOperator(c->desc));
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return ms;
}
// Milliseconds to compile all of `cases` through Device::compileOperators.
double compileTogether(vkdml::Device& device, const std::vector<Case*>& cases) {
  std::vector<vkdml::Operator> ops;
  for (Case* c : cases) ops.push_back(device.createOperator(c->desc));
  const auto start = std::chrono::steady_clock::now();
  device.compileOperators(ops);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

void printCompileTimes(const std::vector<Case*>& cases) {
  // Side by side first, on a Device of its own: nothing the driver may keep
  // in the process from the one-at-a-time run below can help it.
  double together = 0;
  {
    auto device = vkdml::Device::create();
    together = compileTogether(*device, cases);
  }
  auto cold = vkdml::Device::create();
  const std::vector<double> coldMs = compileAll(*cold, cases);
  vkdml::DeviceOptions options;
  options.pipelineCacheData = cold->pipelineCacheData();
  cold.reset();
  auto warm = vkdml::Device::create(options);
  const std::vector<double> warmMs = compileAll(*warm, cases);
  std::printf("compile times (ms), cold then with the blob (%zu bytes, %s):\n", options.pipelineCacheData.size(),
              warm->info().pipelineCacheLoaded ? "loaded" : "not loaded");
  double coldTotal = 0, warmTotal = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    std::printf("compile  %-52s %9.1f %9.1f\n", cases[i]->name.c_str(), coldMs[i], warmMs[i]);
    coldTotal += coldMs[i];
    warmTotal += warmMs[i];
  }
  std::printf("compile  %-52s %9.1f %9.1f\n", "total", coldTotal, warmTotal);
  auto blob = vkdml::Device::create(options);
  std::printf("compile  %-52s %9.1f %9.1f\n", "all at once (compileOperators, one thread per core)", together,
              compileTogether(*blob, cases));
}

}  // namespace bench
