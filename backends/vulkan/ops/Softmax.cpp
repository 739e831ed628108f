// Vulkan Softmax / LogSoftmax (both the opset < 13 flattened form and the one-axis form).
// Kernel: shaders/vulkan/softmax.comp, a line per invocation, or per work-group of 64 for
// lines of 128 or more.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Softmax.hpp"
#include "vulkan/shaders/softmax.hpp"

namespace tessera {
namespace {

class VulkanSoftmax final : public VulkanExecution {
 public:
  VulkanSoftmax(Backend* b, const Node& n, const SoftmaxParams& p) : VulkanExecution(b, n.label()), node_(n), params_(p) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    int64_t outer, n, inner;
    TESSERA_RETURN_IF_ERROR(params_.split3(node_, in[0]->shape(), &outer, &n, &inner));
    const bool group = vkops::groupLine(backend(), n, outer * inner);
    return dispatch(group ? vkshaders::softmax_GROUP : vkshaders::softmax_THREAD,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])},
                    {vkops::u32(outer * inner), vkops::u32(n), vkops::u32(inner), params_.log ? 1u : 0u},
                    group ? outer * inner * vkops::kWorkGroupSize : outer * inner);
  }

 private:
  const Node& node_;
  SoftmaxParams params_;
};

TESSERA_VK_CREATOR(createSoftmax) {
  if (!allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  SoftmaxParams p;
  if (!SoftmaxParams::parse(node, &p).isOk()) return nullptr;
  int64_t outer, n, inner;
  if (!p.split3(node, inputs[0]->shape(), &outer, &n, &inner).isOk()) return nullptr;
  if (!vkops::withinLoopLimit(b, vkops::lineIterations(n, 3))) return nullptr;  // three passes
  return std::make_unique<VulkanSoftmax>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Softmax, createSoftmax);
TESSERA_REGISTER_EXECUTION(kVulkan, LogSoftmax, createSoftmax);

}  // namespace tessera
