// Vulkan Concat: one strided copy per input into its place in the output.
// Kernel: shaders/vulkan/strided_copy.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Concat.hpp"

namespace tessera {
namespace {

class VulkanConcat final : public VulkanExecution {
 public:
  VulkanConcat(Backend* b, const Node& n, int64_t axis) : VulkanExecution(b, n.label()), axis_(axis) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const std::vector<int64_t> os = vkops::stridesOf(out[0]->shape());
    int64_t offset = 0;
    for (const Tensor* t : in) {
      if (t->elementCount() > 0)
        TESSERA_RETURN_IF_ERROR(vkops::stridedCopy(*this, VulkanBackend::binding(t), VulkanBackend::binding(out[0]),
                                                   t->shape(), vkops::stridesOf(t->shape()), os, {}, 0, offset * os[axis_]));
      offset += t->dim(static_cast<int>(axis_));
    }
    return Status::ok();
  }

 private:
  int64_t axis_;
};

TESSERA_VK_CREATOR(createConcat) {
  if (!allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(outputs)) return nullptr;
  ConcatParams p;
  if (!ConcatParams::parse(node, &p).isOk()) return nullptr;
  const int64_t rank = outputs[0]->rank();
  if (rank == 0 || rank > vkops::kMaxRank) return nullptr;
  for (const Tensor* t : inputs) if (!t) return nullptr;
  const int64_t axis = p.axis < 0 ? p.axis + rank : p.axis;
  if (axis < 0 || axis >= rank) return nullptr;
  return std::make_unique<VulkanConcat>(b, node, axis);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Concat, createConcat);

}  // namespace tessera
