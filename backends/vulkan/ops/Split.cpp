// Vulkan Split: one strided copy per output from its place in the input (the output
// shapes, already resolved by the shape function, give the split sizes).
// Kernel: shaders/vulkan/strided_copy.comp.
#include "backends/vulkan/VulkanOps.hpp"

namespace tessera {
namespace {

class VulkanSplit final : public VulkanExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  VulkanSplit(Backend* b, const Node& n, int64_t axis) : VulkanExecution(b, n.label()), axis_(axis) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const std::vector<int64_t> is = vkops::stridesOf(in[0]->shape());
    int64_t offset = 0;
    for (const Tensor* t : out) {
      if (t->elementCount() > 0)
        TESSERA_RETURN_IF_ERROR(vkops::stridedCopy(*this, VulkanBackend::binding(in[0]), VulkanBackend::binding(t),
                                                   t->shape(), is, vkops::stridesOf(t->shape()), {}, offset * is[axis_], 0));
      offset += t->dim(static_cast<int>(axis_));
    }
    return Status::ok();
  }

 private:
  int64_t axis_;
};

TESSERA_VK_CREATOR(createSplit) {
  if (!inputs[0] || !allFloat32(inputs, 1) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  const int64_t rank = inputs[0]->rank();
  if (rank == 0 || rank > vkops::kMaxRank) return nullptr;
  int64_t axis = node.attrs.getInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nullptr;
  return std::make_unique<VulkanSplit>(b, node, axis);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Split, createSplit);

}  // namespace tessera
