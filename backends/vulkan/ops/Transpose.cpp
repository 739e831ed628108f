// Vulkan Transpose (rank <= 6). Kernel: shaders/vulkan/strided_copy.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Transpose.hpp"

namespace tessera {
namespace {

class VulkanTranspose final : public VulkanExecution {
 public:
  VulkanTranspose(Backend* b, const Node& n, std::vector<int64_t> perm) : VulkanExecution(b, n.label()), perm_(std::move(perm)) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const std::vector<int64_t> inStrides = vkops::stridesOf(in[0]->shape());
    std::vector<int64_t> st(perm_.size());
    for (size_t d = 0; d < perm_.size(); ++d) st[d] = inStrides[perm_[d]];
    return vkops::stridedCopy(*this, VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0]),
                              out[0]->shape(), st, vkops::stridesOf(out[0]->shape()));
  }

 private:
  std::vector<int64_t> perm_;
};

TESSERA_VK_CREATOR(createTranspose) {
  if (!allFloat32(inputs) || !vkops::fits32(inputs) || inputs[0]->rank() > vkops::kMaxRank) return nullptr;
  TransposeParams p;
  std::vector<int64_t> perm;
  if (!TransposeParams::parse(node, &p).isOk() || !p.resolve(node, inputs[0]->rank(), &perm).isOk()) return nullptr;
  return std::make_unique<VulkanTranspose>(b, node, perm);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Transpose, createTranspose);

}  // namespace tessera
