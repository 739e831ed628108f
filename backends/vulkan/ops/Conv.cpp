// Vulkan Conv (1-D, 2-D and 3-D; grouped, depthwise, dilated, strided, padded, with bias).
// Kernel: shaders/vulkan/conv.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/WindowParams.hpp"
#include "ops/Conv.hpp"

namespace tessera {
namespace {

class VulkanConv final : public VulkanExecution {
 public:
  VulkanConv(Backend* b, const Node& n, const ConvParams& p) : VulkanExecution(b, n.label()), params_(p) {}

  WorkEstimate work(const Tensors& in, const Tensors& out) const override { return convWork(in, out); }

  Status onResize(const Tensors& in, const Tensors& out) override {
    ConvShape cs;
    TESSERA_RETURN_IF_ERROR(resolveConv(params_, in[0]->shape(), in[1]->shape(), &cs));
    const bool hasBias = in.size() > 2 && in[2];
    // One invocation per 4 output columns (x OC channels): see conv.comp.
    const bool tiled = cs.outPerGroup() % 4 == 0;
    const WindowGeometry w3 = cs.window.padTo3D();
    const int64_t invocations = cs.batch * (cs.outChannels / (tiled ? 4 : 1)) * w3.output[0] * w3.output[1] *
                                ((w3.output[2] + 3) / 4);
    std::vector<uint32_t> p = {vkops::u32(invocations), vkops::u32(cs.inChannels), vkops::u32(cs.outChannels),
                               vkops::u32(cs.group), hasBias ? 1u : 0u, 0u, 0u, 0u};
    vkops::pushWindow(p, cs.window, false);
    VulkanBinding weights = VulkanBackend::binding(in[1]);
    if (tiled) {  // [M][C/g][K] -> [M/4][C/g][K][4], re-packed on the GPU before the conv
      const int64_t ck = in[1]->elementCount() / cs.outChannels;
      VulkanBinding packed;
      TESSERA_RETURN_IF_ERROR(vk().planDeviceBuffer(in[1]->byteSize(), &packed));
      TESSERA_RETURN_IF_ERROR(vkops::stridedCopy(*this, weights, packed, {cs.outChannels / 4, ck, 4}, {4 * ck, 1, ck},
                                                 {4 * ck, 4, 1}));
      weights = packed;
    }
    return dispatch(tiled ? vkshaders::ShaderId::conv_TILED : vkshaders::ShaderId::conv_DIRECT,
                    {VulkanBackend::binding(in[0]), weights,
                     VulkanBackend::binding(hasBias ? in[2] : in[1]), VulkanBackend::binding(out[0])},
                    p, invocations);
  }

 private:
  ConvParams params_;
};

TESSERA_VK_CREATOR(createConv) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1] || !allFloat32(inputs) || !allFloat32(outputs)) return nullptr;
  if (!vkops::fits32(inputs) || !vkops::fits32(outputs)) return nullptr;
  ConvParams p;
  if (!ConvParams::parse(node, &p).isOk()) return nullptr;
  ConvShape cs;
  if (!resolveConv(p, inputs[0]->shape(), inputs[1]->shape(), &cs).isOk()) return nullptr;
  if (cs.window.rank < 1 || cs.window.rank > 3) return nullptr;
  return std::make_unique<VulkanConv>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Conv, createConv);

}  // namespace tessera
