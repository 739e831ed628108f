// Vulkan ConvTranspose (1-D, 2-D and 3-D, grouped, dilated, with bias).
// Kernel: shaders/vulkan/conv_transpose.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/WindowParams.hpp"
#include "ops/Conv.hpp"

namespace tessera {
namespace {

class VulkanConvTranspose final : public VulkanExecution {
 public:
  VulkanConvTranspose(Backend* b, const Node& n, const ConvParams& p) : VulkanExecution(b, n.label()), params_(p) {}

  WorkEstimate work(const Tensors& in, const Tensors& out) const override { return convTransposeWork(in, out); }

  Status onResize(const Tensors& in, const Tensors& out) override {
    ConvShape cs;
    TESSERA_RETURN_IF_ERROR(resolveConvTranspose(params_, in[0]->shape(), in[1]->shape(), &cs));
    const bool hasBias = in.size() > 2 && in[2];
    const int64_t n = out[0]->elementCount();
    std::vector<uint32_t> p = {vkops::u32(n), vkops::u32(cs.inChannels), vkops::u32(cs.outChannels),
                               vkops::u32(cs.group), hasBias ? 1u : 0u, 0u, 0u, 0u};
    vkops::pushWindow(p, cs.window, false);
    return dispatch(vkshaders::ShaderId::conv_transpose,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[1]),
                     VulkanBackend::binding(hasBias ? in[2] : in[1]), VulkanBackend::binding(out[0])},
                    p, n);
  }

 private:
  ConvParams params_;
};

TESSERA_VK_CREATOR(createConvTranspose) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1] || !allFloat32(inputs) || !allFloat32(outputs)) return nullptr;
  if (!vkops::fits32(inputs) || !vkops::fits32(outputs)) return nullptr;
  ConvParams p;
  if (!ConvParams::parse(node, &p).isOk()) return nullptr;
  ConvShape cs;
  if (!resolveConvTranspose(p, inputs[0]->shape(), inputs[1]->shape(), &cs).isOk()) return nullptr;
  if (cs.window.rank < 1 || cs.window.rank > 3) return nullptr;
  if (cs.outputShape() != outputs[0]->shape()) return nullptr;
  return std::make_unique<VulkanConvTranspose>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, ConvTranspose, createConvTranspose);

}  // namespace tessera
