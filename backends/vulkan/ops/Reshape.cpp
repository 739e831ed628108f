// Vulkan Reshape, Flatten, Squeeze, Unsqueeze and Dropout (inference): the bytes do not
// change in NCHW, so each is one buffer copy (shape functions already checked the shapes),
// or nothing where the Session gave the output its input's buffer (Backend::onShareBuffer).
#include "backends/vulkan/VulkanOps.hpp"

namespace tessera {
namespace {

class VulkanBufferCopy final : public VulkanExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  VulkanBufferCopy(Backend* b, const Node& n) : VulkanExecution(b, n.label()) {}
  bool outputIsInputBytes() const override { return true; }

  Status onResize(const Tensors& in, const Tensors& out) override {
    if (in[0]->deviceHandle() == out[0]->deviceHandle()) return Status::ok();  // one storage: nothing to move
    return copy(VulkanBackend::binding(in[0]).buffer, VulkanBackend::binding(out[0]).buffer, vk().storageBytes(out[0]));
  }
};

TESSERA_VK_CREATOR(createCopy) {
  if (!inputs[0] || inputs[0]->dtype() != outputs[0]->dtype()) return nullptr;
  if (inputs[0]->dtype() != DataType::kF32) return nullptr;
  if (node.opType == "Dropout" && (outputs.size() > 1 || (inputs.size() > 2 && inputs[2]))) return nullptr;
  return std::make_unique<VulkanBufferCopy>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Reshape, createCopy);
TESSERA_REGISTER_EXECUTION(kVulkan, Flatten, createCopy);
TESSERA_REGISTER_EXECUTION(kVulkan, Squeeze, createCopy);
TESSERA_REGISTER_EXECUTION(kVulkan, Unsqueeze, createCopy);
TESSERA_REGISTER_EXECUTION(kVulkan, Dropout, createCopy);

}  // namespace tessera
