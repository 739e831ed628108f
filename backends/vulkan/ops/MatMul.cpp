// Vulkan MatMul (numpy semantics: 1-D operands, batch broadcasting up to 4 batch dims; the
// optional bias, residual Z and fused activation of ops/MatMul.hpp).
// Kernel: shaders/vulkan/matmul.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/MatMulLanes.hpp"
#include "ops/MatMul.hpp"
#include "vulkan/shaders/matmul.hpp"

namespace tessera {
namespace {

class VulkanMatMul final : public VulkanExecution {
 public:
  VulkanMatMul(Backend* b, const Node& n, const FusedActivation& act)
      : VulkanExecution(b, n.label()), act_(act), transB_(matMulTransB(n)), alpha_(matMulAlpha(n)) {}

  WorkEstimate work(const Tensors& in, const Tensors& out) const override {
    MatMulShape ms;
    return resolveMatMul(in[0]->shape(), matMulB(in[1]->shape(), transB_), &ms).isOk() ? matMulWork(in, out, ms.K)
                                                                                      : WorkEstimate{};
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    MatMulShape ms;
    TESSERA_RETURN_IF_ERROR(resolveMatMul(in[0]->shape(), matMulB(in[1]->shape(), transB_), &ms));
    const int64_t n = out[0]->elementCount();
    const int br = static_cast<int>(ms.batch.size());
    // Batch strides of A and B (stride 0 on broadcast dims), right-aligned to the batch.
    auto batchStrides = [&](const Shape& own, int64_t matrix) {
      std::vector<int64_t> st(br, 0);
      int64_t s = matrix;
      for (int d = static_cast<int>(own.size()) - 1, o = br - 1; d >= 0; --d, --o) {
        st[o] = own[d] == 1 ? 0 : s;
        s *= own[d];
      }
      return st;
    };
    const std::vector<int64_t> as = batchStrides(ms.aBatch, ms.M * ms.K), bs = batchStrides(ms.bBatch, ms.K * ms.N);
    // One invocation per 4x4 block of each output matrix (matmul.comp).
    int64_t batches = 1;
    for (int64_t d : ms.batch) batches *= d;
    const int64_t blocks = n == 0 ? 0 : batches * ((ms.M + 3) / 4) * ((ms.N + 3) / 4);
    // The optional bias (ops/MatMul.hpp) is matmul.comp's C: every row reads the same N values.
    const Tensor* bias = in.size() > kMatMulBiasInput ? in[kMatMulBiasInput] : nullptr;
    std::vector<uint32_t> p = {vkops::u32(blocks), vkops::u32(ms.M), vkops::u32(ms.N), vkops::u32(ms.K),
                               vkops::u32(ms.K), 1u, transB_ ? 1u : vkops::u32(ms.N), transB_ ? vkops::u32(ms.K) : 1u,
                               floatBits(alpha_), floatBits(bias ? 1.f : 0.f),
                               bias ? 1u : 0u, 0u, bias ? 1u : 0u, vkops::u32(br)};
    for (int d = 0; d < 4; ++d) p.push_back(d < br ? vkops::u32(ms.batch[d]) : 1u);
    for (int d = 0; d < 4; ++d) p.push_back(d < br ? vkops::u32(as[d]) : 0u);
    for (int d = 0; d < 4; ++d) p.push_back(d < br ? vkops::u32(bs[d]) : 0u);
    const int lanes = vkops::matmulLanes(vk().deviceKind(), blocks, ms.K, &p, act_);
    const Tensor* z = in.size() > kMatMulResidualInput ? in[kMatMulResidualInput] : nullptr;
    p.push_back(z ? 1u : 0u);
    return dispatch(lanes > 1 ? vkshaders::matmul_SPLIT : vkshaders::matmul_BLOCK,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[1]),
                     VulkanBackend::binding(bias ? bias : in[0]), VulkanBackend::binding(out[0]),
                     VulkanBackend::binding(z ? z : in[0])},
                    p, blocks * lanes);
  }

 private:
  FusedActivation act_;
  bool transB_;
  float alpha_;
};

TESSERA_VK_CREATOR(createMatMul) {
  if (!allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs) || !vkops::fits32(outputs)) return nullptr;
  MatMulShape ms;
  if (!resolveMatMul(inputs[0]->shape(), matMulB(node, inputs[1]->shape()), &ms).isOk() || ms.batch.size() > 4)
    return nullptr;
  if (!vkops::withinLoopLimit(b, ms.K + 64)) return nullptr;  // matmul.comp: one loop over K
  FusedActivation act;
  if (!FusedActivation::parse(node, &act).isOk() || act.hasAffine()) return nullptr;
  return std::make_unique<VulkanMatMul>(b, node, act);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, MatMul, createMatMul);

}  // namespace tessera
