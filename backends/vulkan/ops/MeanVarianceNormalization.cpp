// Vulkan MeanVarianceNormalization over any axes: one work-group per group of the kept dims,
// reducing its members in shared memory. Kernel: shaders/vulkan/mvn.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/MeanVarianceNormalization.hpp"
#include "vulkan/shaders/mvn.hpp"

namespace tessera {
namespace {


// The kernel's view of the input: merged dims, which are reduced, the group and member counts.
struct MvnLayout {
  std::vector<int64_t> dims;
  uint32_t mask = 0;
  int64_t groups = 1, members = 1;

  Status init(const Node& node, const MeanVarianceNormalizationParams& p, const Shape& s) {
    std::vector<bool> reduced;
    TESSERA_RETURN_IF_ERROR(p.mergedDims(node, s, &dims, &reduced));
    if (dims.size() > static_cast<size_t>(vkops::kMaxRank))
      return Status::unsupported(node.label() + ": more than 6 runs of reduced and kept dims");
    for (size_t d = 0; d < dims.size(); ++d) {
      (reduced[d] ? members : groups) *= dims[d];
      if (reduced[d]) mask |= 1u << d;
    }
    if (groups * vkops::kWorkGroupSize >= (int64_t(1) << 32))  // the invocation index is 32-bit
      return Status::unsupported(node.label() + ": too many groups for one dispatch");
    return Status::ok();
  }
};

class VulkanMeanVarianceNormalization final : public VulkanExecution {
 public:
  VulkanMeanVarianceNormalization(Backend* b, const Node& n, const MeanVarianceNormalizationParams& p)
      : VulkanExecution(b, n.label()), node_(n), params_(p) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    MvnLayout l;
    TESSERA_RETURN_IF_ERROR(l.init(node_, params_, in[0]->shape()));
    if (in[0]->elementCount() == 0) return Status::ok();
    std::vector<uint32_t> p = {vkops::u32(l.groups), vkops::u32(l.members), vkops::u32(l.dims.size())};
    vkops::push6(p, l.dims, 1);
    p.push_back(l.mask);
    p.push_back(floatBits(static_cast<float>(MeanVarianceNormalizationParams::kEpsilon)));
    return dispatch(vkshaders::mvn, {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])}, p,
                    l.groups * vkops::kWorkGroupSize);
  }

 private:
  Node node_;
  MeanVarianceNormalizationParams params_;
};

TESSERA_VK_CREATOR(createMeanVarianceNormalization) {
  if (inputs.empty() || !inputs[0] || !allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs))
    return nullptr;
  MeanVarianceNormalizationParams p;
  MvnLayout l;
  if (!MeanVarianceNormalizationParams::parse(node, &p).isOk() || !l.init(node, p, inputs[0]->shape()).isOk())
    return nullptr;
  return std::make_unique<VulkanMeanVarianceNormalization>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, MeanVarianceNormalization, createMeanVarianceNormalization);

}  // namespace tessera
