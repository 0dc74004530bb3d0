#include "device_list.hpp"

#include <string>

#include "data_types.hpp"

namespace dispatch {

namespace {
const char* typeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}
const char* yes(bool value) {
  return value ? "yes" : "no";
}
}  // namespace

void printDeviceList(std::ostream& out) {
  const auto names = vkdml::Device::listPhysicalDevices();
  out << "Vulkan devices:\n";
  for (size_t i = 0; i < names.size(); ++i) out << "  " << i << ": " << names[i] << "\n";
}

void printDeviceFeatures(const vkdml::DeviceInfo& info, std::ostream& out) {
  out << "Selected device: " << info.name << "\n";
  auto line = [&](const char* name, const auto& value) { out << "  " << name << ": " << value << "\n"; };
  line("type", typeName(info.type));
  line("Vulkan", std::to_string(VK_API_VERSION_MAJOR(info.apiVersion)) + "." +
                     std::to_string(VK_API_VERSION_MINOR(info.apiVersion)) + "." +
                     std::to_string(VK_API_VERSION_PATCH(info.apiVersion)));
  line("vendor id", info.vendorId);
  line("driver", info.driver.empty() ? "not reported" : info.driver);
  line("subgroup size", info.subgroupSize);
  line("relative subgroup shuffles", yes(info.subgroupShuffleRelative));
  line("shared memory per workgroup", std::to_string(info.maxComputeSharedMemorySize) + " bytes");
  line("max workgroups along x", info.maxComputeWorkGroupCountX);
  line("max workgroup size along x", info.maxComputeWorkGroupSizeX);
  line("max storage buffer range", std::to_string(info.maxStorageBufferRange) + " bytes");
  line("max memory allocation", std::to_string(info.maxMemoryAllocationSize) + " bytes");
  line("max buffer size", info.maxBufferSize ? std::to_string(info.maxBufferSize) + " bytes" : "not reported");
  line("multiprocessors", info.multiprocessors ? std::to_string(info.multiprocessors) : "not reported");
  line("timestamps", info.timestampPeriodNs > 0 ? std::to_string(info.timestampPeriodNs) + " ns per tick" : "no");
  line("shaderInt8", yes(info.shaderInt8));
  line("shaderInt16", yes(info.shaderInt16));
  line("shaderFloat16", yes(info.shaderFloat16));
  line("8-bit storage buffers", yes(info.storageBuffer8BitAccess));
  line("16-bit storage buffers", yes(info.storageBuffer16BitAccess));
  line("Vulkan memory model", yes(info.vulkanMemoryModel));
  line("integer dot product", yes(info.integerDotProduct));
  line("4x8-bit packed dot product accelerated", yes(info.integerDotProduct4x8BitPackedAccelerated));
  line("cooperative matrix (VK_NV_cooperative_matrix)", yes(info.cooperativeMatrixNV));
  line("int8 16x16x32 cooperative matrices", yes(info.cooperativeMatrixInt8));
  line("cooperative matrix (VK_KHR_cooperative_matrix)", yes(info.cooperativeMatrixKHR));
  std::string shapes;
  for (const auto& s : info.cooperativeMatrixKHRInt8Shapes)
    shapes +=
        (shapes.empty() ? "" : ", ") + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  line("int8 KHR cooperative-matrix shapes (MxNxK)", shapes.empty() ? "none" : shapes);
  line("int8 KHR cooperative matrices of a shape the kernel takes", yes(info.cooperativeMatrixKHRInt8));
  line("validation layers", yes(info.validationEnabled));
}

void printFeatureSupport(const vkdml::FeatureSupport& support, std::ostream& out) {
  out << "Operators (DML_FEATURE_LEVEL_" << (support.featureLevel >> 12) << "_" << ((support.featureLevel >> 8) & 0xF)
      << "):\n";
  for (const vkdml::OperatorSupport& op : support.operators) {
    out << "  " << op.name << "\n";
    for (const auto* tensors : {&op.inputs, &op.outputs})
      for (const vkdml::TensorSupport& tensor : *tensors) {
        out << "    " << tensor.name << ":";
        for (DML_TENSOR_DATA_TYPE type : tensor.dataTypes) out << " " << vkdml::toString(type);
        out << "\n";
      }
    if (op.type == DML_OPERATOR_CONVOLUTION_INTEGER) {
      out << "    paths:";
      for (vkdml::ConvolutionPath path : op.convolutionPaths) out << " " << vkdml::toString(path);
      out << "\n";
    }
  }
}

}  // namespace dispatch
