// Vulkan SqueezeExcite (ops/SqueezeExcite.hpp): one dispatch for a squeeze-and-excite block's
// two 1x1 convs and its Mul. Constant weights only, packed on the host into one fp32 table;
// NC4HW4 images when X comes as one, else NCHW buffers.
// Kernel: shaders/vulkan/squeeze_excite.comp (PLAIN, IMAGE).
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/SqueezeExcite.hpp"
#include "vulkan/shaders/squeeze_excite.hpp"

namespace tessera {
namespace {

using P = SqueezeExciteParams;
constexpr int64_t kTilePixels = 1024;  // pixels of a channel block a work-group scales

class VulkanSqueezeExcite final : public VulkanExecution {
 public:
  VulkanSqueezeExcite(Backend* b, const Node& n, const SqueezeExciteParams& p, std::vector<float> table, bool images)
      : VulkanExecution(b, n.label()), params_(p), table_(std::move(table)), images_(images) {}

  bool readsConstantOnHost(size_t input) const override { return input >= P::kW1; }

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    vkops::followImages(images_, available, in, out);
    (*in)[P::kPooled] = (*in)[P::kX];  // one storage for both NC4HW4 operands
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    if (out[0]->elementCount() == 0) return Status::ok();
    const Shape& s = in[P::kX]->shape();
    const int64_t C = s[1], C1 = in[P::kW1]->dim(0), C4 = (C + 3) / 4;
    const int64_t tiles = std::max<int64_t>(1, (s[2] * s[3] + kTilePixels - 1) / kTilePixels);
    const int64_t blocks = P::blocksPerGroup(C4, vk().deviceKind() == DeviceKind::kCPU);
    const int64_t groups = s[0] * ((C4 + blocks - 1) / blocks) * tiles;
    VulkanBinding table;
    TESSERA_RETURN_IF_ERROR(vk().planConstant(table_.data(), table_.size() * sizeof(float), &table));
    const std::vector<uint32_t> p = {vkops::u32(groups), vkops::u32(C), vkops::u32(s[2]), vkops::u32(s[3]),
                                     vkops::u32(C1), vkops::u32(tiles), vkops::u32(blocks),
                                     static_cast<uint32_t>(params_.hidden.kind), floatBits(params_.hidden.alpha),
                                     floatBits(params_.hidden.beta), static_cast<uint32_t>(params_.gate.kind),
                                     floatBits(params_.gate.alpha), floatBits(params_.gate.beta),
                                     floatBits(params_.gate.scale), floatBits(params_.gate.shift)};
    const bool images = in[P::kX]->layout() == Layout::kNC4HW4;
    return dispatch(images ? vkshaders::squeeze_excite_IMAGE : vkshaders::squeeze_excite_PLAIN,
                    {VulkanBackend::binding(in[P::kX]), VulkanBackend::binding(in[P::kPooled]), table,
                     VulkanBackend::binding(out[0])},
                    p, groups * 64);
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
  if (!vkops::withinLoopLimit(b, (C1 + 63) / 64 * C + (C + 63) / 64 * C1 + C4 * kTilePixels / 64 + 64)) return nullptr;
  return std::make_unique<VulkanSqueezeExcite>(b, node, params,
                                               P::gpuTable(inputs[P::kW1], P::input(inputs, P::kB1), inputs[P::kW2],
                                                           P::input(inputs, P::kB2)),
                                               vkops::imagesFit(b, {x, inputs[P::kPooled], outputs[0]}));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, SqueezeExcite, createSqueezeExcite);

}  // namespace tessera
