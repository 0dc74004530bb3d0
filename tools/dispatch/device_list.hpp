// vkdml-dispatch --list: the Vulkan devices, and what vkdml uses of one.
#pragma once

#include <vkdml/vkdml.hpp>

#include <ostream>

namespace dispatch {

// "INDEX: NAME" per physical device, in enumeration order (VKDML_DEVICE and
// -a take the index or a substring of the name).
void printDeviceList(std::ostream& out);
// The selected device's properties and features that vkdml's kernels and
// paths depend on (vkdml::DeviceInfo), one "name: value" line each.
void printDeviceFeatures(const vkdml::DeviceInfo& info, std::ostream& out);
// The operators the device supports (Device::featureSupport): each tensor's
// data types, ConvolutionInteger's paths, the DirectML feature level.
void printFeatureSupport(const vkdml::FeatureSupport& support, std::ostream& out);

}  // namespace dispatch
