// The steps of Device::create and Device::adopt, in the order they run.
#pragma once

#include <mutex>
#include <vector>

#include "device_impl.hpp"

namespace vkdml {
namespace detail {

// vk/instance.cpp. Held from loading volk's instance-level functions to
// their last use (see its definition).
std::unique_lock<std::mutex> lockLoader();
// The instance, with the validation layer and its messenger where asked
// for and installed; returns whether validation is on.
bool createInstance(Device::Impl& d, const DeviceOptions& options);
// The physical device (DeviceOptions::selector, else $VKDML_DEVICE, else
// the preferred type) and its compute queue family.
void selectPhysicalDevice(Device::Impl& d, const DeviceOptions& options);

// vk/features.cpp.
bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name);
// DeviceInfo and the properties of the physical device.
void readInfo(Device::Impl& d);
// The VkDevice, with the features every kernel needs (all that are missing
// named at once) and the optional ones the device has.
void createLogicalDevice(Device::Impl& d);

}  // namespace detail
}  // namespace vkdml
