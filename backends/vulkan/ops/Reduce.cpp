// Vulkan Reduce* (every ReduceKind, any axes, constant axes input). Kernel: shaders/vulkan/reduce.comp,
// one output per invocation when few elements meet in each, one per work-group of 64 when
// many do (a whole image or axis: spread over the group instead of one invocation's loop).
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Reduce.hpp"
#include "vulkan/shaders/reduce.hpp"

namespace tessera {
namespace {

// Loop iterations of one invocation (docs/VULKAN.md, "Known gaps"): its share of the reduced
// elements, each with a loop over the rank, twice for log-sum-exp; the tree's steps.
int64_t reduceIterations(int64_t members, int64_t rank, ReduceKind kind) {
  return vkops::lineIterations(members, (rank + 2) * (kind == ReduceKind::kLogSumExp ? 2 : 1));
}

class VulkanReduce final : public VulkanExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  VulkanReduce(Backend* b, const Node& n, ReduceKind kind, std::vector<bool> reduced, bool identity)
      : VulkanExecution(b, n.label()), kind_(kind), reduced_(std::move(reduced)), identity_(identity) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    if (identity_)
      return copy(VulkanBackend::binding(in[0]).buffer, VulkanBackend::binding(out[0]).buffer, vk().storageBytes(out[0]));
    const Shape& s = in[0]->shape();
    uint32_t mask = 0;
    int64_t r = 1;
    for (size_t d = 0; d < s.size(); ++d)
      if (reduced_[d]) { mask |= 1u << d; r *= s[d]; }
    const int64_t n = out[0]->elementCount();
    std::vector<uint32_t> p = {vkops::u32(n), vkops::u32(s.size())};
    vkops::push6(p, s, 1);
    p.push_back(mask);
    p.push_back(static_cast<uint32_t>(kind_));
    p.push_back(vkops::u32(r));
    const bool group = vkops::groupLine(backend(), r, n);
    return dispatch(group ? vkshaders::reduce_GROUP : vkshaders::reduce_THREAD,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0])}, p,
                    group ? n * vkops::kWorkGroupSize : n);
  }

 private:
  ReduceKind kind_;
  std::vector<bool> reduced_;
  bool identity_;
};

TESSERA_VK_CREATOR(createReduce) {
  if (!inputs[0] || !allFloat32(inputs, 1) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  if (inputs[0]->rank() > vkops::kMaxRank) return nullptr;
  ReduceParams p;
  if (!ReduceParams::parse(node, &p).isOk()) return nullptr;
  std::vector<bool> reduced;
  bool identity = false;
  if (!resolveReduceAxes(node, p, inputs[0]->shape(), inputs.size() > 1 ? inputs[1] : nullptr, &reduced, &identity).isOk())
    return nullptr;
  if (inputs[0]->rank() == 0 && !identity) return nullptr;
  int64_t members = 1;  // reduced elements per output, each visited with a loop over the rank
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d]) members *= inputs[0]->dim(static_cast<int>(d));
  if (!vkops::withinLoopLimit(b, reduceIterations(members, inputs[0]->rank(), p.kind))) return nullptr;
  return std::make_unique<VulkanReduce>(b, node, p.kind, reduced, identity);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, ReduceSum, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceMean, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceMax, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceMin, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceProd, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceL1, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceL2, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceSumSquare, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceLogSumExp, createReduce);
TESSERA_REGISTER_EXECUTION(kVulkan, ReduceLogSum, createReduce);

}  // namespace tessera
