// Vulkan DepthToSpace (DCR and CRD) and SpaceToDepth: each is a rank-6 transpose of a view
// of the input. Kernel: shaders/vulkan/strided_copy.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/DepthToSpace.hpp"

namespace tessera {
namespace {

class VulkanDepthToSpace final : public VulkanExecution {
 public:
  VulkanDepthToSpace(Backend* b, const Node& n, const DepthToSpaceParams& p, bool toSpace)
      : VulkanExecution(b, n.label()), params_(p), toSpace_(toSpace) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& s = in[0]->shape();
    const int64_t N = s[0], C = s[1], H = s[2], W = s[3], B = params_.blockSize;
    std::vector<int64_t> dims, st;
    if (toSpace_) {
      const int64_t Co = C / (B * B);
      // Output [N, Co, H, B, W, B] (row-major = [N, Co, H*B, W*B]); the input channel is
      // (b1 * B + b2) * Co + co for DCR and (co * B + b1) * B + b2 for CRD.
      dims = {N, Co, H, B, W, B};
      const int64_t hw = H * W;
      if (params_.crd) st = {C * hw, B * B * hw, W, B * hw, 1, hw};
      else st = {C * hw, hw, W, B * Co * hw, 1, Co * hw};
    } else {
      const int64_t Ho = H / B, Wo = W / B;
      // Output [N, B, B, C, Ho, Wo] (row-major = [N, B*B*C, Ho, Wo]): channel
      // (by * B + bx) * C + c reads x[n, c, ho * B + by, wo * B + bx].
      dims = {N, B, B, C, Ho, Wo};
      st = {C * H * W, W, 1, H * W, B * W, B};
    }
    return vkops::stridedCopy(*this, VulkanBackend::binding(in[0]), VulkanBackend::binding(out[0]), dims, st,
                              vkops::stridesOf(dims));
  }

 private:
  DepthToSpaceParams params_;
  bool toSpace_;
};

TESSERA_VK_CREATOR(createDepthToSpace) {
  if (!allFloat32(inputs) || !allFloat32(outputs) || inputs[0]->rank() != 4 || !vkops::fits32(inputs)) return nullptr;
  DepthToSpaceParams p;
  if (!DepthToSpaceParams::parse(node, &p).isOk()) return nullptr;
  const bool toSpace = node.opType == "DepthToSpace";
  if (toSpace ? inputs[0]->dim(1) % (p.blockSize * p.blockSize) != 0
              : (inputs[0]->dim(2) % p.blockSize != 0 || inputs[0]->dim(3) % p.blockSize != 0))
    return nullptr;
  return std::make_unique<VulkanDepthToSpace>(b, node, p, toSpace);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, DepthToSpace, createDepthToSpace);
TESSERA_REGISTER_EXECUTION(kVulkan, SpaceToDepth, createDepthToSpace);

}  // namespace tessera
