// Vulkan GridSample (f32 X and grid, NCHW buffers; fp16 storage in fp16 mode).
// Kernel: shaders/vulkan/grid_sample.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/GridSample.hpp"
#include "vulkan/shaders/grid_sample.hpp"

namespace tessera {
namespace {

class VulkanGridSample final : public VulkanExecution {
 public:
  VulkanGridSample(Backend* b, const Node& n, const GridSampleParams& p) : VulkanExecution(b, n.label()), params_(p) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& xs = in[0]->shape();
    const Shape& ys = out[0]->shape();
    const int64_t count = out[0]->elementCount();
    const std::vector<uint32_t> p = {vkops::u32(count), vkops::u32(xs[1]), vkops::u32(xs[2]), vkops::u32(xs[3]),
                                     vkops::u32(ys[2]), vkops::u32(ys[3]), static_cast<uint32_t>(params_.mode),
                                     static_cast<uint32_t>(params_.padding), params_.alignCorners ? 1u : 0u};
    return dispatch(vkshaders::grid_sample,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[1]), VulkanBackend::binding(out[0])}, p,
                    count);
  }

 private:
  GridSampleParams params_;
};

TESSERA_VK_CREATOR(createGridSample) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1] || !allFloat32(inputs, 2) || !allFloat32(outputs)) return nullptr;
  if (inputs[0]->rank() != 4 || inputs[1]->rank() != 4 || !vkops::fits32(inputs) || !vkops::fits32(outputs)) return nullptr;
  if (outputs[0]->elementCount() == 0) return nullptr;  // nothing to record; the CPU makes the empty tensor
  GridSampleParams p;
  if (!GridSampleParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<VulkanGridSample>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, GridSample, createGridSample);

}  // namespace tessera
