// Vulkan Range on f32 (start and delta are known when planning: the output length depends
// on them). Kernel: shaders/vulkan/range.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "vulkan/shaders/range.hpp"

namespace tessera {
namespace {

class VulkanRange final : public VulkanExecution {
 public:
  // Start, limit and delta are read on the host while planning: nothing is uploaded.
  bool readsConstantOnHost(size_t) const override { return true; }
  VulkanRange(Backend* b, const Node& n, float start, float delta)
      : VulkanExecution(b, n.label()), start_(start), delta_(delta) {}

  Status onResize(const Tensors&, const Tensors& out) override {
    const int64_t n = out[0]->elementCount();
    return dispatch(vkshaders::range, {VulkanBackend::binding(out[0])},
                    {vkops::u32(n), floatBits(start_), floatBits(delta_)}, n);
  }

 private:
  float start_, delta_;
};

TESSERA_VK_CREATOR(createRange) {
  if (inputs.size() != 3 || !allFloat32(inputs) || !allFloat32(outputs)) return nullptr;
  if (!inputs[0]->data() || !inputs[2]->data()) return nullptr;
  return std::make_unique<VulkanRange>(b, node, inputs[0]->data<float>()[0], inputs[2]->data<float>()[0]);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Range, createRange);

}  // namespace tessera
