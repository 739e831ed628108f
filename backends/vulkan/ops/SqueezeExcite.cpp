// Vulkan SqueezeExcite (ops/SqueezeExcite.hpp): one dispatch for a squeeze-and-excite block's
// two 1x1 convs and its Mul. Constant weights only, packed on the host into one fp32 table;
// NC4HW4 images when X comes as one, else NCHW buffers. Without a `pooled` input the block's
// GlobalAveragePool is done here too: inside the kernel on a small plane (*_SELF,
// SqueezeExciteParams::meansInKernel), else global_pool.comp's PARTIAL dispatch first, its
// parts added by the kernel (*_PARTS).
// Kernels: shaders/vulkan/squeeze_excite.comp, global_pool.comp (AVG_PARTIAL*).
#include "backends/vulkan/VulkanOps.hpp"
#include "core/src/SplitReduction.hpp"
#include "ops/SqueezeExcite.hpp"
#include "vulkan/shaders/global_pool.hpp"
#include "vulkan/shaders/squeeze_excite.hpp"

namespace tessera {
namespace {

using P = SqueezeExciteParams;

class VulkanSqueezeExcite final : public VulkanExecution {
 public:
  VulkanSqueezeExcite(Backend* b, const Node& n, const SqueezeExciteParams& p, std::vector<float> table, bool images)
      : VulkanExecution(b, n.label()), params_(p), table_(std::move(table)), images_(images) {}

  bool readsConstantOnHost(size_t input) const override { return input >= P::kW1; }

  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    vkops::followImages(images_, available, in, out);
    if (P::input(inputs, P::kPooled)) (*in)[P::kPooled] = (*in)[P::kX];  // one storage for both NC4HW4 operands
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    if (out[0]->elementCount() == 0) return Status::ok();
    const Shape& s = in[P::kX]->shape();
    const int64_t C = s[1], C1 = in[P::kW1]->dim(0), C4 = (C + 3) / 4;
    const int64_t tiles = std::max<int64_t>(1, (s[2] * s[3] + P::kTilePixels - 1) / P::kTilePixels);
    const int64_t blocks = P::blocksPerGroup(C4, vk().deviceKind() == DeviceKind::kCPU);
    const int64_t groups = s[0] * ((C4 + blocks - 1) / blocks) * tiles;
    VulkanBinding table;
    TESSERA_RETURN_IF_ERROR(vk().planConstant(table_.data(), table_.size() * sizeof(float), &table));
    std::vector<uint32_t> p = {vkops::u32(groups), vkops::u32(C), vkops::u32(s[2]), vkops::u32(s[3]),
                                     vkops::u32(C1), vkops::u32(tiles), vkops::u32(blocks),
                                     static_cast<uint32_t>(params_.hidden.kind), floatBits(params_.hidden.alpha),
                                     floatBits(params_.hidden.beta), static_cast<uint32_t>(params_.gate.kind),
                                     floatBits(params_.gate.alpha), floatBits(params_.gate.beta),
                                     floatBits(params_.gate.scale), floatBits(params_.gate.shift)};
    const bool images = in[P::kX]->layout() == Layout::kNC4HW4;
    const VulkanBinding x = VulkanBackend::binding(in[P::kX]), y = VulkanBackend::binding(out[0]);
    if (const Tensor* pooled = P::input(in, P::kPooled))
      return dispatch(images ? vkshaders::squeeze_excite_IMAGE : vkshaders::squeeze_excite_PLAIN,
                      {x, VulkanBackend::binding(pooled), table, y}, p, groups * 64);
    if (P::meansInKernel(C, s[2] * s[3]))  // binding 1 unused: X again
      return dispatch(images ? vkshaders::squeeze_excite_IMAGE_SELF : vkshaders::squeeze_excite_PLAIN_SELF,
                      {x, x, table, y}, p, groups * 64);
    // The pool's sums over S parts of each plane ([N][C4][S] vec4), then the kernel adds them.
    const int64_t poolGroups = s[0] * C4, plane = s[2] * s[3];
    const int64_t parts = globalPoolParts(poolGroups, plane, vkops::kWorkGroupSize, vk().deviceKind(),
                                          "TESSERA_VULKAN_POOL_PARTS");
    VulkanBinding sums;
    TESSERA_RETURN_IF_ERROR(vk().planDeviceBuffer(poolGroups * parts * 4 * sizeof(float), &sums));
    TESSERA_RETURN_IF_ERROR(dispatch(images ? vkshaders::global_pool_AVG_PARTIAL_IMAGE : vkshaders::global_pool_AVG_PARTIAL,
                                     {x, sums},
                                     {vkops::u32(poolGroups * parts), vkops::u32(C), vkops::u32(s[2]),
                                      vkops::u32(s[3]), vkops::u32(parts)},
                                     poolGroups * parts * vkops::kWorkGroupSize));
    p.push_back(vkops::u32(parts));
    return dispatch(images ? vkshaders::squeeze_excite_IMAGE_PARTS : vkshaders::squeeze_excite_PLAIN_PARTS,
                    {x, sums, table, y}, p, groups * 64);
  }

 private:
  SqueezeExciteParams params_;
  std::vector<float> table_;  // the kernel's `w`: W1 transposed, B1, W2, B2
  bool images_;
};

TESSERA_VK_CREATOR(createSqueezeExcite) {
  if (outputs.size() != 1 || !allFloat32(outputs) || !P::gpuKernelTakes(inputs)) return nullptr;
  Tensor* x = P::input(inputs, P::kX);
  if (!vkops::fits32({x, outputs[0]})) return nullptr;
  const int64_t C = x->dim(1), C1 = inputs[P::kW1]->dim(0);
  SqueezeExciteParams params;
  if (!SqueezeExciteParams::parse(node, &params).isOk()) return nullptr;
  // The kernel's loops, at most: the hidden vector (C each for C1 / 64 outputs), the gates
  // (C1 each for C / 64 channels), the pixels (a tile of every block); lavapipe ends longer
  // ones early (docs/VULKAN.md).
  const int64_t C4 = (C + 3) / 4;
  // Without `pooled`: each invocation's means over a plane of at most one tile (SELF), or the
  // pool's (a 64th of the plane) and the S parts (PARTS).
  const int64_t plane = x->dim(2) * x->dim(3);
  const int64_t pooling = P::input(inputs, P::kPooled) ? 0 : (C4 + 63) / 64 * P::kTilePixels + plane / 64 + 64;
  if (!vkops::withinLoopLimit(b, (C1 + 63) / 64 * C + (C + 63) / 64 * C1 + C4 * P::kTilePixels / 64 + 64 + pooling))
    return nullptr;
  return std::make_unique<VulkanSqueezeExcite>(b, node, params,
                                               P::gpuTable(inputs[P::kW1], P::input(inputs, P::kB1), inputs[P::kW2],
                                                           P::input(inputs, P::kB2)),
                                               vkops::imagesFit(b, {x, P::input(inputs, P::kPooled), outputs[0]}));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, SqueezeExcite, createSqueezeExcite);

}  // namespace tessera
