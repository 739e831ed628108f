// Vulkan ArgMax / ArgMin (every axis, keepdims, select_last_index) of f32 tensors, int64
// indices. Kernel: shaders/vulkan/arg_min_max.comp, a line per invocation, or per work-group
// of 64 for lines of 128 or more. Other input dtypes run on the CPU.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/ArgMinMax.hpp"
#include "vulkan/shaders/arg_min_max.hpp"

namespace tessera {
namespace {

class VulkanArgMinMax final : public VulkanExecution {
 public:
  VulkanArgMinMax(Backend* b, const Node& n, const ArgMinMaxParams& p) : VulkanExecution(b, n.label()), params_(p) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    int64_t outer, n, inner;
    if (!params_.split(in[0]->shape(), &outer, &n, &inner))
      return Status::invalid("ArgMin/ArgMax: axis " + std::to_string(params_.axis) + " out of range");
    const bool group = vkops::groupLine(backend(), n, outer * inner);
    return dispatch(group ? vkshaders::arg_min_max_GROUP : vkshaders::arg_min_max_THREAD,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])},
                    {vkops::u32(outer * inner), vkops::u32(n), vkops::u32(inner), params_.max ? 1u : 0u,
                     params_.selectLastIndex ? 1u : 0u},
                    group ? outer * inner * vkops::kWorkGroupSize : outer * inner);
  }

 private:
  ArgMinMaxParams params_;
};

TESSERA_VK_CREATOR(createArgMinMax) {
  if (inputs.size() != 1 || !inputs[0] || !allFloat32(inputs) || outputs.size() != 1 || !outputs[0]) return nullptr;
  if (outputs[0]->dtype() != DataType::kI64 || !vkops::fits32(inputs)) return nullptr;
  ArgMinMaxParams p;
  int64_t outer, n, inner;
  if (!ArgMinMaxParams::parse(node, &p).isOk() || !p.split(inputs[0]->shape(), &outer, &n, &inner))
    return nullptr;
  if (n == 0 || outer * inner == 0) return nullptr;  // nothing to choose from, or nothing to write
  if (!vkops::withinLoopLimit(b, vkops::lineIterations(n, 1))) return nullptr;
  return std::make_unique<VulkanArgMinMax>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, ArgMax, createArgMinMax);
TESSERA_REGISTER_EXECUTION(kVulkan, ArgMin, createArgMinMax);

}  // namespace tessera
