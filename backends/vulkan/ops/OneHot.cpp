// Vulkan OneHot (semantics: ops/OneHot.hpp): f32, int32 or int64 indices, f32 values read on
// the device (shaders/vulkan/one_hot.comp); other value dtypes run on the CPU. depth is known
// when planned (the output's extent; the Session specializes a run-time depth) and never
// bound. fp16 mode stores f32 indices as fp16, exact for integers up to 2048 only: a larger
// depth with f32 indices stays on the CPU there.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/OneHot.hpp"
#include "vulkan/shaders/one_hot.hpp"

namespace tessera {
namespace {

class VulkanOneHot final : public VulkanExecution {
 public:
  VulkanOneHot(Backend* b, const Node& n, const OneHotParams& p) : VulkanExecution(b, n.label()), node_(n), params_(p) {}
  bool readsConstantOnHost(size_t input) const override { return input == 1; }

  Status onResize(const Tensors& in, const Tensors& out) override {
    int64_t axis = 0;
    TESSERA_RETURN_IF_ERROR(params_.outputAxis(node_, in[0]->rank(), &axis));
    int64_t inner = 1;
    for (int d = static_cast<int>(axis); d < in[0]->rank(); ++d) inner *= in[0]->dim(d);
    const int64_t count = out[0]->elementCount(), depth = out[0]->dim(static_cast<int>(axis));
    const DataType it = in[0]->dtype();
    const vkshaders::ShaderId shader = it == DataType::kF32   ? vkshaders::one_hot_F32
                                       : it == DataType::kI32 ? vkshaders::one_hot_I32
                                                              : vkshaders::one_hot_I64;
    return dispatch(shader, {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[2]), VulkanBackend::binding(out[0])},
                    {vkops::u32(count), vkops::u32(depth), vkops::u32(inner)}, count);
  }

 private:
  Node node_;
  OneHotParams params_;
};

TESSERA_VK_CREATOR(createOneHot) {
  OneHotParams p;
  if (!OneHotParams::parse(node, &p).isOk() || inputs.size() != 3 || !inputs[0] || !inputs[2]) return nullptr;
  const DataType it = inputs[0]->dtype();
  if (it != DataType::kF32 && it != DataType::kI32 && it != DataType::kI64) return nullptr;
  if (inputs[2]->dtype() != DataType::kF32 || outputs.empty() || !allFloat32(outputs)) return nullptr;
  if (!vkops::fits32(inputs) || !vkops::fits32(outputs) || outputs[0]->elementCount() == 0) return nullptr;
  int64_t axis = 0;
  if (!p.outputAxis(node, inputs[0]->rank(), &axis).isOk()) return nullptr;
  if (it == DataType::kF32 && static_cast<VulkanBackend*>(b)->fp16() && outputs[0]->dim(static_cast<int>(axis)) > 2048)
    return nullptr;
  return std::make_unique<VulkanOneHot>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, OneHot, createOneHot);

}  // namespace tessera
