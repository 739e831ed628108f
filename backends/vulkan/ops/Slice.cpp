// Vulkan Slice with constant starts/ends/axes/steps (negative steps too).
// Kernel: shaders/vulkan/strided_copy.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Slice.hpp"

namespace tessera {
namespace {

class VulkanSlice final : public VulkanExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  VulkanSlice(Backend* b, const Node& n, SliceWindow w) : VulkanExecution(b, n.label()), window_(std::move(w)) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const std::vector<int64_t> s = vkops::stridesOf(in[0]->shape());
    std::vector<int64_t> st(s.size());
    int64_t offset = 0;
    for (size_t d = 0; d < s.size(); ++d) {
      st[d] = s[d] * window_.steps[d];
      offset += window_.starts[d] * s[d];
    }
    return vkops::stridedCopy(*this, VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0]),
                              window_.counts, st, vkops::stridesOf(out[0]->shape()), {}, offset);
  }

 private:
  SliceWindow window_;
};

TESSERA_VK_CREATOR(createSlice) {
  if (!inputs[0] || inputs[0]->dtype() != DataType::kF32 || !vkops::fits32(inputs)) return nullptr;
  if (inputs[0]->rank() > vkops::kMaxRank || inputs[0]->rank() == 0) return nullptr;
  SliceParams p;
  if (!SliceParams::parse(node, &p).isOk()) return nullptr;
  std::vector<const Tensor*> rest;
  for (size_t i = 1; i < 5; ++i) rest.push_back(i < inputs.size() ? inputs[i] : nullptr);
  SliceWindow w;
  if (!resolveSlice(node, p, inputs[0]->shape(), rest, &w).isOk()) return nullptr;
  return std::make_unique<VulkanSlice>(b, node, w);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Slice, createSlice);

}  // namespace tessera
