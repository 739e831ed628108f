// Vulkan LayerNormalization (Y, and the optional Mean and InvStdDev; Scale and B of the
// full normalised shape).
// Kernel: shaders/vulkan/normalize_rows.comp, a row per invocation (LAYER), or per work-group
// of 64 from 128 elements (LAYER_GROUP).
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/LayerNormalization.hpp"
#include "vulkan/shaders/normalize_rows.hpp"

namespace tessera {
namespace {

class VulkanLayerNorm final : public VulkanExecution {
 public:
  VulkanLayerNorm(Backend* b, const Node& n, int64_t axis, float eps)
      : VulkanExecution(b, n.label()), axis_(axis), eps_(eps) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& s = in[0]->shape();
    int64_t rows = 1, n = 1;
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) (d < axis_ ? rows : n) *= s[d];
    const bool hasBias = in.size() > 2 && in[2];
    const Tensor* mean = out.size() > 1 && out[1] ? out[1] : nullptr;
    const Tensor* inv = out.size() > 2 && out[2] ? out[2] : nullptr;
    const bool group = vkops::groupLine(backend(), n, rows);
    return dispatch(group ? vkshaders::normalize_rows_LAYER_GROUP : vkshaders::normalize_rows_LAYER,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[1]),
                     VulkanBackend::binding(hasBias ? in[2] : in[1]), VulkanBackend::binding(out[0]),
                     VulkanBackend::binding(mean ? mean : out[0]), VulkanBackend::binding(inv ? inv : out[0])},
                    {vkops::u32(rows), vkops::u32(n), 1u, floatBits(eps_), hasBias ? 1u : 0u, mean ? 1u : 0u,
                     inv ? 1u : 0u},
                    group ? rows * vkops::kWorkGroupSize : rows);
  }

 private:
  int64_t axis_;
  float eps_;
};

TESSERA_VK_CREATOR(createLayerNorm) {
  if (outputs.size() > 3 || inputs.size() < 2 || !inputs[1] || !allFloat32(inputs) || !allFloat32(outputs)) return nullptr;
  if (!vkops::fits32(inputs)) return nullptr;
  LayerNormalizationParams p;
  if (!LayerNormalizationParams::parse(node, &p).isOk()) return nullptr;
  const int64_t rank = inputs[0]->rank();
  const int64_t axis = p.axis < 0 ? p.axis + rank : p.axis;
  if (axis < 0 || axis >= rank) return nullptr;
  int64_t n = 1;
  for (int64_t d = axis; d < rank; ++d) n *= inputs[0]->dim(static_cast<int>(d));
  // Scale / B must cover the whole normalised shape (no broadcasting inside the row).
  if (inputs[1]->elementCount() != n) return nullptr;
  if (inputs.size() > 2 && inputs[2] && inputs[2]->elementCount() != n) return nullptr;
  if (!vkops::withinLoopLimit(b, vkops::lineIterations(n, 3))) return nullptr;  // three passes over a row
  return std::make_unique<VulkanLayerNorm>(b, node, axis, p.epsilon);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, LayerNormalization, createLayerNorm);

}  // namespace tessera
