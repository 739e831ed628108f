// Vulkan InstanceNormalization. Kernel: shaders/vulkan/normalize_rows.comp, a (batch, channel)
// plane per invocation (INSTANCE), or per work-group of 64 from 128 elements (INSTANCE_GROUP).
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/InstanceNormalization.hpp"
#include "vulkan/shaders/normalize_rows.hpp"

namespace tessera {
namespace {

class VulkanInstanceNorm final : public VulkanExecution {
 public:
  VulkanInstanceNorm(Backend* b, const Node& n, float eps) : VulkanExecution(b, n.label()), eps_(eps) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& s = in[0]->shape();
    int64_t spatial = 1;
    for (size_t d = 2; d < s.size(); ++d) spatial *= s[d];
    const int64_t rows = s[0] * s[1];
    const bool group = vkops::groupLine(backend(), spatial, rows);
    return dispatch(group ? vkshaders::normalize_rows_INSTANCE_GROUP : vkshaders::normalize_rows_INSTANCE,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[1]), VulkanBackend::binding(in[2]),
                     VulkanBackend::binding(out[0])},
                    {vkops::u32(rows), vkops::u32(spatial), vkops::u32(s[1]), floatBits(eps_), 1u},
                    group ? rows * vkops::kWorkGroupSize : rows);
  }

 private:
  float eps_;
};

TESSERA_VK_CREATOR(createInstanceNorm) {
  if (inputs.size() != 3 || !allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  for (const Tensor* t : inputs) if (!t) return nullptr;
  if (inputs[0]->rank() < 3) return nullptr;
  InstanceNormalizationParams p;
  if (!InstanceNormalizationParams::parse(node, &p).isOk()) return nullptr;
  // normalize_rows: three passes over a plane.
  const int64_t spatial = inputs[0]->elementCount() / std::max<int64_t>(1, inputs[0]->dim(0) * inputs[0]->dim(1));
  if (!vkops::withinLoopLimit(b, vkops::lineIterations(spatial, 3))) return nullptr;
  return std::make_unique<VulkanInstanceNorm>(b, node, p.epsilon);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, InstanceNormalization, createInstanceNorm);

}  // namespace tessera
