// Vulkan MaxPool / AveragePool / GlobalMaxPool / GlobalAveragePool over 1-D, 2-D and 3-D
// windows (no Indices output), on NC4HW4: storage images for 1-D and 2-D when they fit,
// else the NCHW buffer build. Kernels: shaders/vulkan/pool.comp (an output pixel per
// invocation), global_pool.comp for the global pools (an output per work-group of 64, or
// parts of the plane per work-group and a merge, on a GPU where those groups are few).
#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/WindowParams.hpp"
#include "core/src/SplitReduction.hpp"
#include "ops/Pool.hpp"
#include "vulkan/shaders/global_pool.hpp"
#include "vulkan/shaders/pool.hpp"

namespace tessera {
namespace {

class VulkanPool final : public VulkanExecution {
 public:
  VulkanPool(Backend* b, const Node& n, const PoolParams& p, bool images)
      : VulkanExecution(b, n.label()), params_(p), images_(images), global_(isGlobal(n)) {}

  static bool isGlobal(const Node& n) { return n.opType == "GlobalAveragePool" || n.opType == "GlobalMaxPool"; }

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), images_ ? Layout::kNC4HW4 : Layout::kNCHW);
    (*out)[0] = (*in)[0];
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    using vkshaders::ShaderId;
    WindowGeometry g;
    TESSERA_RETURN_IF_ERROR(resolvePool(params_, in[0]->shape(), &g));
    if (global_) return recordGlobal(in[0], out[0], g.inputCount() / g.input.back(), g.input.back());
    const int64_t pixels = out[0]->elementCount() / in[0]->dim(1) * ((in[0]->dim(1) + 3) / 4);
    std::vector<uint32_t> p = {vkops::u32(pixels), params_.countIncludePad ? 1u : 0u};
    vkops::pushWindow(p, g, true);
    p.push_back(vkops::u32(in[0]->dim(1)));
    const ShaderId kernel = params_.isMax() ? (images_ ? vkshaders::pool_MAX_IMAGE : vkshaders::pool_MAX)
                                            : (images_ ? vkshaders::pool_AVG_IMAGE : vkshaders::pool_AVG);
    return dispatch(kernel, {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])}, p, pixels);
  }

 private:
  // global_pool.comp: a work-group per (batch, channel block), or per part of its plane
  // (globalPoolParts, core/src/SplitReduction.hpp) and a second dispatch merging the parts.
  Status recordGlobal(const Tensor* x, const Tensor* y, int64_t rows, int64_t W) {
    using vkshaders::ShaderId;
    const bool max = params_.isMax();
    const int64_t groups = x->dim(0) * ((x->dim(1) + 3) / 4), C = x->dim(1);
    const int64_t parts =
        globalPoolParts(groups, rows * W, vkops::kWorkGroupSize, vk().deviceKind(), "TESSERA_VULKAN_POOL_PARTS");
    if (parts == 1) {
      const ShaderId kernel = max ? (images_ ? vkshaders::global_pool_MAX_IMAGE : vkshaders::global_pool_MAX)
                                  : (images_ ? vkshaders::global_pool_AVG_IMAGE : vkshaders::global_pool_AVG);
      return dispatch(kernel, {VulkanBackend::binding(x), VulkanBackend::binding(y)},
                      {vkops::u32(groups), vkops::u32(C), vkops::u32(rows), vkops::u32(W), 1u},
                      groups * vkops::kWorkGroupSize);
    }
    VulkanBinding partials;
    TESSERA_RETURN_IF_ERROR(vk().planDeviceBuffer(groups * parts * 4 * sizeof(float), &partials));
    const ShaderId partial = max ? (images_ ? vkshaders::global_pool_MAX_PARTIAL_IMAGE : vkshaders::global_pool_MAX_PARTIAL)
                                 : (images_ ? vkshaders::global_pool_AVG_PARTIAL_IMAGE : vkshaders::global_pool_AVG_PARTIAL);
    const ShaderId merge = max ? (images_ ? vkshaders::global_pool_MAX_MERGE_IMAGE : vkshaders::global_pool_MAX_MERGE)
                               : (images_ ? vkshaders::global_pool_AVG_MERGE_IMAGE : vkshaders::global_pool_AVG_MERGE);
    TESSERA_RETURN_IF_ERROR(dispatch(partial, {VulkanBackend::binding(x), partials},
                                     {vkops::u32(groups * parts), vkops::u32(C), vkops::u32(rows), vkops::u32(W),
                                      vkops::u32(parts)},
                                     groups * parts * vkops::kWorkGroupSize));
    return dispatch(merge, {partials, VulkanBackend::binding(y)},
                    {vkops::u32(groups), vkops::u32(C), vkops::u32(parts), vkops::u32(rows * W)}, groups);
  }

  PoolParams params_;
  bool images_;
  bool global_;  // a global pool: global_pool.comp
};

TESSERA_VK_CREATOR(createPool) {
  if (outputs.size() != 1 || !allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  PoolParams p;
  if (!PoolParams::parse(node, &p).isOk()) return nullptr;
  WindowGeometry g;
  if (!resolvePool(p, inputs[0]->shape(), &g).isOk()) return nullptr;
  if (g.rank < 1 || g.rank > 3 || inputs[0]->dim(1) == 0) return nullptr;
  // pool.comp walks an output's whole window in one invocation; global_pool.comp a 64th of it.
  int64_t window = 1;
  for (int64_t k : g.kernel) window *= k;
  if (VulkanPool::isGlobal(node)) window = window / vkops::kWorkGroupSize + 1;
  if (!vkops::withinLoopLimit(b, window + window / g.kernel.back() + 16)) return nullptr;
  return std::make_unique<VulkanPool>(b, node, p, g.rank <= 2 && vkops::imagesFit(b, {inputs[0], outputs[0]}));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, MaxPool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, AveragePool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, GlobalMaxPool, createPool);
TESSERA_REGISTER_EXECUTION(kVulkan, GlobalAveragePool, createPool);

}  // namespace tessera
