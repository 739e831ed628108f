// Vulkan ConvTranspose (1-D, 2-D and 3-D, grouped, dilated, with bias) on NC4HW4: storage
// images when they can hold the tensors (1-D and 2-D), else the NCHW buffer build of the
// same kernel. Kernels: shaders/vulkan/conv_transpose.comp (weights: ConvWeights.hpp).
#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/ConvWeights.hpp"
#include "backends/vulkan/ops/WindowParams.hpp"
#include "ops/Conv.hpp"
#include "vulkan/shaders/conv_transpose.hpp"
#include "vulkan/shaders/conv_weights.hpp"

namespace tessera {
namespace {

class VulkanConvTranspose final : public VulkanExecution {
 public:
  VulkanConvTranspose(Backend* b, const Node& n, const ConvParams& p, bool images)
      : VulkanExecution(b, n.label()), params_(p), images_(images) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), Layout::kNCHW);
    (*in)[0] = (*out)[0] = images_ ? Layout::kNC4HW4 : Layout::kNCHW;
  }

  WorkEstimate work(const Tensors& in, const Tensors& out) const override { return convTransposeWork(in, out); }
  // Constant weights are packed on the host once per plan (vkops::packConvWeights).
  bool readsConstantOnHost(size_t input) const override { return input == 1 || input == 2; }

  Status onResize(const Tensors& in, const Tensors& out) override {
    ConvShape cs;
    TESSERA_RETURN_IF_ERROR(resolveConvTranspose(params_, in[0]->shape(), in[1]->shape(), &cs));
    using vkshaders::ShaderId;
    const bool hasBias = in.size() > 2 && in[2];
    const int64_t m4 = (cs.outChannels + 3) / 4, cg = cs.inChannels / cs.group, mg = cs.outPerGroup();
    const int64_t pixels = out[0]->elementCount() / cs.outChannels * m4;
    const FusedActivation& act = params_.activation;
    std::vector<uint32_t> p = {vkops::u32(pixels), vkops::u32(cs.inChannels), vkops::u32(cs.outChannels),
                               vkops::u32(cs.group), hasBias ? 1u : 0u, static_cast<uint32_t>(act.kind),
                               floatBits(act.alpha), floatBits(act.beta)};
    vkops::pushWindow(p, cs.window, false);
    p.push_back(floatBits(act.scale));
    p.push_back(floatBits(act.shift));
    // Constant weights arrive on the host (readsConstantOnHost) and are packed and uploaded
    // now; computed ones are on the device and packed by conv_weights.comp each run.
    const bool hostWeights = in[1]->backend() != &vk();
    const bool gemm = cs.group == 1 || (cg % 4 == 0 && mg % 4 == 0);
    VulkanBinding weights;
    if (!gemm) {  // read as they are, [C][M/group][K]
      TESSERA_RETURN_IF_ERROR(vkops::fp32ConvOperand(*this, vk(), in[1], &weights));
    } else {  // 4x4 blocks
      const int64_t k = in[1]->elementCount() / (cs.inChannels * mg);
      const int64_t floats = m4 * ((cg + 3) / 4) * k * 16;
      if (hostWeights) {
        TESSERA_RETURN_IF_ERROR(vkops::uploadWeights(
            vk(), vkops::packConvWeights(in[1]->data<float>(), vkops::WeightPacking::kTransposed, cs.outChannels, cg, k, mg,
                                         floats),
            &weights));
      } else {
        TESSERA_RETURN_IF_ERROR(vk().planDeviceBuffer(floats * sizeof(float), &weights));
        TESSERA_RETURN_IF_ERROR(dispatch(vkshaders::conv_weights_TRANSPOSED, {VulkanBackend::binding(in[1]), weights},
                                         {vkops::u32(floats), vkops::u32(cs.outChannels), vkops::u32(cg),
                                          vkops::u32(k), vkops::u32(mg)},
                                         floats));
      }
    }
    const ShaderId kernel = gemm ? (images_ ? vkshaders::conv_transpose_GEMM_IMAGE : vkshaders::conv_transpose_GEMM)
                                 : (images_ ? vkshaders::conv_transpose_GENERIC_IMAGE : vkshaders::conv_transpose_GENERIC);
    VulkanBinding bias = weights;  // bound, unread, when there is none
    if (hasBias) TESSERA_RETURN_IF_ERROR(vkops::fp32ConvOperand(*this, vk(), in[2], &bias));
    return dispatch(kernel,
                    {VulkanBackend::binding(in[0]), weights, bias,
                     VulkanBackend::binding(out[0])},
                    p, pixels);
  }

 private:
  ConvParams params_;
  bool images_;
};

TESSERA_VK_CREATOR(createConvTranspose) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1] || !allFloat32(inputs) || !allFloat32(outputs)) return nullptr;
  if (!vkops::fits32(inputs) || !vkops::fits32(outputs)) return nullptr;
  ConvParams p;
  if (!ConvParams::parse(node, &p).isOk()) return nullptr;
  ConvShape cs;
  if (!resolveConvTranspose(p, inputs[0]->shape(), inputs[1]->shape(), &cs).isOk()) return nullptr;
  if (cs.window.rank < 1 || cs.window.rank > 3) return nullptr;
  if (cs.outputShape() != outputs[0]->shape()) return nullptr;
  const bool images = cs.window.rank <= 2 && vkops::imagesFit(b, {inputs[0], outputs[0]});
  return std::make_unique<VulkanConvTranspose>(b, node, p, images);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, ConvTranspose, createConvTranspose);

}  // namespace tessera
