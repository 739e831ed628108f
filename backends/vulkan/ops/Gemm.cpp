// Vulkan Gemm: Y = alpha * A' B' + beta * C with C broadcast to [M, N].
// Kernel: shaders/vulkan/matmul.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/MatMulLanes.hpp"
#include "ops/Gemm.hpp"
#include "ops/MatMul.hpp"
#include "vulkan/shaders/matmul.hpp"

namespace tessera {
namespace {

class VulkanGemm final : public VulkanExecution {
 public:
  VulkanGemm(Backend* b, const Node& n, const GemmParams& p) : VulkanExecution(b, n.label()), params_(p) {}

  WorkEstimate work(const Tensors& in, const Tensors& out) const override {
    return matMulWork(in, out, params_.transA ? in[0]->dim(0) : in[0]->dim(1));
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& a = in[0]->shape();
    const Shape& bs = in[1]->shape();
    const int64_t M = params_.transA ? a[1] : a[0], K = params_.transA ? a[0] : a[1];
    const int64_t N = params_.transB ? bs[0] : bs[1];
    const Tensor* c = in.size() > 2 ? in[2] : nullptr;
    int64_t cRow = 0, cCol = 0;
    if (c) {
      const Shape& cs = c->shape();
      const int64_t rows = cs.size() == 2 ? cs[0] : 1, cols = cs.empty() ? 1 : cs.back();
      cRow = rows == 1 ? 0 : cols;
      cCol = cols == 1 ? 0 : 1;
    }
    const int64_t blocks = ((M + 3) / 4) * ((N + 3) / 4);  // 4x4 blocks (matmul.comp)
    std::vector<uint32_t> p = {vkops::u32(blocks),
                               vkops::u32(M),
                               vkops::u32(N),
                               vkops::u32(K),
                               vkops::u32(params_.transA ? 1 : K),
                               vkops::u32(params_.transA ? M : 1),
                               vkops::u32(params_.transB ? 1 : N),
                               vkops::u32(params_.transB ? K : 1),
                               floatBits(params_.alpha),
                               floatBits(params_.beta),
                               c ? 1u : 0u,
                               vkops::u32(cRow),
                               vkops::u32(cCol),
                               0u};
    for (int k = 0; k < 12; ++k) p.push_back(k < 4 ? 1u : 0u);
    const int lanes = vkops::matmulLanes(vk().deviceKind(), blocks, K, &p);
    return dispatch(lanes > 1 ? vkshaders::matmul_SPLIT : vkshaders::matmul_BLOCK,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[1]),
                     VulkanBackend::binding(c ? c : in[0]), VulkanBackend::binding(out[0]),
                     VulkanBackend::binding(in[0])},  // matmul.comp's z, unread (P[30] = 0)
                    p, blocks * lanes);
  }

 private:
  GemmParams params_;
};

TESSERA_VK_CREATOR(createGemm) {
  if (inputs.size() < 2 || !allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  if (inputs[0]->rank() != 2 || inputs[1]->rank() != 2) return nullptr;
  if (inputs.size() > 2 && inputs[2] && inputs[2]->rank() > 2) return nullptr;
  GemmParams p;
  if (!GemmParams::parse(node, &p).isOk()) return nullptr;
  if (!vkops::withinLoopLimit(b, inputs[0]->dim(p.transA ? 0 : 1) + 64)) return nullptr;  // matmul.comp: a loop over K
  return std::make_unique<VulkanGemm>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Gemm, createGemm);

}  // namespace tessera
