// Vulkan Pad (constant / reflect / edge; constant pads and value). Kernel: shaders/vulkan/pad.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Pad.hpp"
#include "vulkan/shaders/pad.hpp"

namespace tessera {
namespace {

class VulkanPad final : public VulkanExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  VulkanPad(Backend* b, const Node& n, PadMode mode, std::vector<int64_t> begins, float value)
      : VulkanExecution(b, n.label()), mode_(mode), begins_(std::move(begins)), value_(value) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& os = out[0]->shape();
    const int64_t n = out[0]->elementCount();
    std::vector<uint32_t> p = {vkops::u32(n), vkops::u32(os.size())};
    vkops::push6(p, os, 1);
    vkops::push6(p, in[0]->shape(), 1);
    vkops::push6(p, begins_);
    p.push_back(mode_ == PadMode::kConstant ? 0u : mode_ == PadMode::kReflect ? 1u : 2u);
    p.push_back(floatBits(value_));
    return dispatch(vkshaders::pad, {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])}, p, n);
  }

 private:
  PadMode mode_;
  std::vector<int64_t> begins_;
  float value_;
};

TESSERA_VK_CREATOR(createPad) {
  if (!inputs[0] || !allFloat32(inputs, 1) || !allFloat32(outputs) || !vkops::fits32(outputs)) return nullptr;
  const int64_t rank = inputs[0]->rank();
  if (rank == 0 || rank > vkops::kMaxRank) return nullptr;
  PadParams p;
  if (!PadParams::parse(node, &p).isOk()) return nullptr;
  std::vector<int64_t> begins, ends;
  Shape os;
  if (!resolvePads(p, inputs[0]->shape(), inputs.size() > 1 ? inputs[1] : nullptr, &begins, &ends, &os).isOk())
    return nullptr;
  if (inputs.size() > 3 && inputs[3]) return nullptr;  // 'axes' input: left to the CPU
  float value = p.valueAttribute;
  if (p.padsFromInput && inputs.size() > 2 && inputs[2] && inputs[2]->elementCount() > 0) {
    if (!inputs[2]->data() || inputs[2]->dtype() != DataType::kF32) return nullptr;
    value = inputs[2]->data<float>()[0];
  }
  if (p.mode != PadMode::kConstant)
    for (int64_t d : inputs[0]->shape()) if (d == 0) return nullptr;
  return std::make_unique<VulkanPad>(b, node, p.mode, begins, value);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Pad, createPad);

}  // namespace tessera
