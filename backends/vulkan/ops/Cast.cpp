// Vulkan Cast from f32 to f32 (graph f16/f64/integer data never reaches a Vulkan kernel: in
// fp16 mode f32 is only *stored* as fp16, the same way on both sides): one buffer copy.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Cast.hpp"

namespace tessera {
namespace {

class VulkanCastCopy final : public VulkanExecution {
 public:
  VulkanCastCopy(Backend* b, const Node& n) : VulkanExecution(b, n.label()) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    return copy(VulkanBackend::binding(in[0]).buffer, VulkanBackend::binding(out[0]).buffer, vk().storageBytes(out[0]));
  }
};

TESSERA_VK_CREATOR(createCast) {
  CastParams p;
  if (inputs.empty() || !inputs[0] || !CastParams::parse(node, &p).isOk()) return nullptr;
  if (p.to != DataType::kF32 || !allFloat32(inputs, 1) || !allFloat32(outputs)) return nullptr;
  return std::make_unique<VulkanCastCopy>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Cast, createCast);

}  // namespace tessera
