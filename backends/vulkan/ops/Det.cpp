// Vulkan Det (f32 data; fp16 storage in fp16 mode, fp32 arithmetic): LU with partial pivoting
// per matrix, step for step as the CPU (shaders/vulkan/det.comp), in an fp32 scratch copy of
// the input made at resize.
#include "backends/vulkan/VulkanOps.hpp"
#include "vulkan/shaders/det.hpp"

namespace tessera {
namespace {

// One invocation runs about M^3 / 3 serial loop iterations in fp32. Lavapipe ends every loop
// of an invocation once their iterations add up to 65535 (llvmpipe's loop limiter: a wrong
// determinant from M = 56 on), so M stays well below that; larger matrices stay on the CPU,
// which factorizes in double.
constexpr int64_t kMaxOrder = 40;

class VulkanDet final : public VulkanExecution {
 public:
  VulkanDet(Backend* b, const Node& n) : VulkanExecution(b, n.label()) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const int64_t count = out[0]->elementCount(), M = in[0]->dim(-1);
    VulkanBinding scratch;
    TESSERA_RETURN_IF_ERROR(vk().planDeviceBuffer(in[0]->elementCount() * sizeof(float), &scratch));
    return dispatch(vkshaders::det, {VulkanBackend::binding(in[0]), scratch, VulkanBackend::binding(out[0])},
                    {vkops::u32(count), vkops::u32(M)}, count);
  }
};

TESSERA_VK_CREATOR(createDet) {
  if (inputs.empty() || !inputs[0] || !allFloat32(inputs) || outputs.empty() || !allFloat32(outputs)) return nullptr;
  const Tensor* x = inputs[0];
  if (x->rank() < 2 || x->dim(-1) != x->dim(-2) || x->dim(-1) < 1 || x->dim(-1) > kMaxOrder) return nullptr;
  if (!vkops::fits32(inputs) || outputs[0]->elementCount() == 0) return nullptr;
  return std::make_unique<VulkanDet>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Det, createDet);

}  // namespace tessera
