// Vulkan Expand (broadcast to the output shape) and Tile (wrap-around reads).
// Kernel: shaders/vulkan/strided_copy.comp.
#include "backends/vulkan/VulkanOps.hpp"

namespace tessera {
namespace {

class VulkanBroadcastCopy final : public VulkanExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  VulkanBroadcastCopy(Backend* b, const Node& n, bool tile) : VulkanExecution(b, n.label()), tile_(tile) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& os = out[0]->shape();
    if (!tile_)
      return vkops::stridedCopy(*this, VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0]), os,
                                vkops::broadcastStrides(in[0]->shape(), os), vkops::stridesOf(os));
    return vkops::stridedCopy(*this, VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0]), os,
                              vkops::stridesOf(in[0]->shape()), vkops::stridesOf(os), in[0]->shape());
  }

 private:
  bool tile_;
};

TESSERA_VK_CREATOR(createExpand) {
  if (!inputs[0] || !allFloat32(inputs, 1) || !allFloat32(outputs) || !vkops::fits32(outputs)) return nullptr;
  if (outputs[0]->rank() > vkops::kMaxRank || outputs[0]->rank() == 0) return nullptr;
  const bool tile = node.opType == "Tile";
  if (tile && inputs[0]->rank() != outputs[0]->rank()) return nullptr;
  return std::make_unique<VulkanBroadcastCopy>(b, node, tile);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Expand, createExpand);
TESSERA_REGISTER_EXECUTION(kVulkan, Tile, createExpand);

}  // namespace tessera
