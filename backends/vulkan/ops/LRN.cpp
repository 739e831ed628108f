// Vulkan LRN across channels. Kernel: shaders/vulkan/lrn.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/LRN.hpp"
#include "vulkan/shaders/lrn.hpp"

namespace tessera {
namespace {

class VulkanLRN final : public VulkanExecution {
 public:
  VulkanLRN(Backend* b, const Node& n, const LRNParams& p) : VulkanExecution(b, n.label()), params_(p) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& s = in[0]->shape();
    int64_t spatial = 1;
    for (size_t d = 2; d < s.size(); ++d) spatial *= s[d];
    const int64_t n = out[0]->elementCount();
    return dispatch(vkshaders::lrn, {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])},
                    {vkops::u32(n), vkops::u32(s[1]), vkops::u32(spatial), vkops::u32(params_.size),
                     floatBits(params_.alpha), floatBits(params_.beta), floatBits(params_.bias)}, n);
  }

 private:
  LRNParams params_;
};

TESSERA_VK_CREATOR(createLRN) {
  if (!allFloat32(inputs) || !allFloat32(outputs) || inputs[0]->rank() < 2 || !vkops::fits32(inputs)) return nullptr;
  LRNParams p;
  if (!LRNParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<VulkanLRN>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, LRN, createLRN);

}  // namespace tessera
