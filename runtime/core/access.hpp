// The objects behind the public handles, for the runtime: the public header
// declares detail::Access a friend of each handle and exposes no accessor.
#pragma once

#include <vkdml/vkdml.hpp>

#include <memory>

namespace vkdml {
namespace detail {

struct Access {
  static Buffer::Impl* impl(const Buffer& buffer) { return buffer.impl_.get(); }
  static const std::shared_ptr<Buffer::Impl>& sharedImpl(const Buffer& buffer) { return buffer.impl_; }
  static Buffer wrap(std::shared_ptr<Buffer::Impl> impl) { return Buffer(std::move(impl)); }
  static Device::Impl& impl(const Device& device) { return *device.impl_; }
  static bool hasPlan(const Operator& op) { return op.plan_ != nullptr; }
  static const OperatorPlan& plan(const Operator& op) { return *op.plan_; }
};

}  // namespace detail
}  // namespace vkdml
