// Vulkan Hardmax: the one-axis form (opset 13) and the older 2-D coercion, both through
// SoftmaxParams::split3 as on the CPU. Kernel: shaders/vulkan/hardmax.comp, a line per
// invocation, or per work-group of 64 for lines of 128 or more.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Softmax.hpp"
#include "vulkan/shaders/hardmax.hpp"

namespace tessera {
namespace {

class VulkanHardmax final : public VulkanExecution {
 public:
  VulkanHardmax(Backend* b, const Node& n, const SoftmaxParams& p) : VulkanExecution(b, n.label()), node_(n), params_(p) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    int64_t outer, n, inner;
    TESSERA_RETURN_IF_ERROR(params_.split3(node_, in[0]->shape(), &outer, &n, &inner));
    if (n == 0) return Status::ok();  // an empty tensor: nothing to write
    const bool group = vkops::groupLine(backend(), n, outer * inner);
    return dispatch(group ? vkshaders::hardmax_GROUP : vkshaders::hardmax_THREAD,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])},
                    {vkops::u32(outer * inner), vkops::u32(n), vkops::u32(inner)},
                    group ? outer * inner * vkops::kWorkGroupSize : outer * inner);
  }

 private:
  Node node_;
  SoftmaxParams params_;
};

TESSERA_VK_CREATOR(createHardmax) {
  if (inputs.empty() || !inputs[0] || !allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs))
    return nullptr;
  SoftmaxParams p;
  int64_t outer, n, inner;
  if (!SoftmaxParams::parse(node, &p).isOk() || !p.split3(node, inputs[0]->shape(), &outer, &n, &inner).isOk())
    return nullptr;
  if (!vkops::withinLoopLimit(b, vkops::lineIterations(n, 2))) return nullptr;  // two passes over a line
  return std::make_unique<VulkanHardmax>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Hardmax, createHardmax);

}  // namespace tessera
