// Vulkan MaxPool / AveragePool / GlobalMaxPool / GlobalAveragePool over 1-D, 2-D and 3-D
// windows (no Indices output). Kernel: shaders/vulkan/pool.comp (variants MAX, AVG).
#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/WindowParams.hpp"
#include "ops/Pool.hpp"

namespace tessera {
namespace {

class VulkanPool final : public VulkanExecution {
 public:
  VulkanPool(Backend* b, const Node& n, const PoolParams& p) : VulkanExecution(b, n.label()), params_(p) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    WindowGeometry g;
    TESSERA_RETURN_IF_ERROR(resolvePool(params_, in[0]->shape(), &g));
    const int64_t n = out[0]->elementCount();
    std::vector<uint32_t> p = {vkops::u32(n), params_.countIncludePad ? 1u : 0u};
    vkops::pushWindow(p, g, true);
    return dispatch(params_.isMax() ? vkshaders::ShaderId::pool_MAX : vkshaders::ShaderId::pool_AVG,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])}, p, n);
  }

 private:
  PoolParams params_;
};

TESSERA_VK_CREATOR(createPool) {
  if (outputs.size() != 1 || !allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  PoolParams p;
  if (!PoolParams::parse(node, &p).isOk()) return nullptr;
  WindowGeometry g;
  if (!resolvePool(p, inputs[0]->shape(), &g).isOk()) return nullptr;
  if (g.rank < 1 || g.rank > 3) return nullptr;
  return std::make_unique<VulkanPool>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, MaxPool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, AveragePool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, GlobalMaxPool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, GlobalAveragePool, createPool);

}  // namespace tessera
