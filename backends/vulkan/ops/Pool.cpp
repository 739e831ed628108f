// Vulkan MaxPool / AveragePool / GlobalMaxPool / GlobalAveragePool over 1-D, 2-D and 3-D
// windows (no Indices output), on NC4HW4: storage images for 1-D and 2-D when they fit,
// else the NCHW buffer build. Kernel: shaders/vulkan/pool.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/WindowParams.hpp"
#include "ops/Pool.hpp"
#include "vulkan/shaders/pool.hpp"

namespace tessera {
namespace {

class VulkanPool final : public VulkanExecution {
 public:
  VulkanPool(Backend* b, const Node& n, const PoolParams& p, bool images)
      : VulkanExecution(b, n.label()), params_(p), images_(images) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), images_ ? Layout::kNC4HW4 : Layout::kNCHW);
    (*out)[0] = (*in)[0];
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    using vkshaders::ShaderId;
    WindowGeometry g;
    TESSERA_RETURN_IF_ERROR(resolvePool(params_, in[0]->shape(), &g));
    const int64_t pixels = out[0]->elementCount() / in[0]->dim(1) * ((in[0]->dim(1) + 3) / 4);
    std::vector<uint32_t> p = {vkops::u32(pixels), params_.countIncludePad ? 1u : 0u};
    vkops::pushWindow(p, g, true);
    p.push_back(vkops::u32(in[0]->dim(1)));
    const ShaderId kernel = params_.isMax() ? (images_ ? vkshaders::pool_MAX_IMAGE : vkshaders::pool_MAX)
                                            : (images_ ? vkshaders::pool_AVG_IMAGE : vkshaders::pool_AVG);
    return dispatch(kernel, {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])}, p, pixels);
  }

 private:
  PoolParams params_;
  bool images_;
};

TESSERA_VK_CREATOR(createPool) {
  if (outputs.size() != 1 || !allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  PoolParams p;
  if (!PoolParams::parse(node, &p).isOk()) return nullptr;
  WindowGeometry g;
  if (!resolvePool(p, inputs[0]->shape(), &g).isOk()) return nullptr;
  if (g.rank < 1 || g.rank > 3 || inputs[0]->dim(1) == 0) return nullptr;
  // pool.comp walks an output's whole window in one invocation (a global pool: the plane).
  int64_t window = 1;
  for (int64_t k : g.kernel) window *= k;
  if (!vkops::withinLoopLimit(b, window + window / g.kernel.back() + 16)) return nullptr;
  return std::make_unique<VulkanPool>(b, node, p, g.rank <= 2 && vkops::imagesFit(b, {inputs[0], outputs[0]}));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, MaxPool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, AveragePool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, GlobalMaxPool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, GlobalAveragePool, createPool);

}  // namespace tessera
