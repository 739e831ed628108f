// Vulkan Conv (1-D, 2-D and 3-D; grouped, depthwise, dilated, strided, padded, with bias, Z
// and a fused activation) on NC4HW4: storage images when they can hold the tensors (1-D and
// 2-D), else the NCHW buffer build of the same kernel. Kernels: shaders/vulkan/conv.comp (weights: ConvWeights.hpp).
#include <cstdlib>
#include <cstring>

#include "backends/vulkan/VulkanOps.hpp"
#include "backends/vulkan/ops/ConvWeights.hpp"
#include "backends/vulkan/ops/WindowParams.hpp"
#include "core/src/SplitReduction.hpp"
#include "ops/Conv.hpp"
#include "vulkan/shaders/conv.hpp"
#include "vulkan/shaders/conv_weights.hpp"

namespace tessera {
namespace {

using vkshaders::ShaderId;

enum class ConvKind { kGemm, kDepthwise, kGeneric };

ConvKind kindOf(const ConvShape& cs) {
  const int64_t cg = cs.inChannels / cs.group, mg = cs.outPerGroup();
  if (cs.group == 1 || (cg % 4 == 0 && mg % 4 == 0)) return ConvKind::kGemm;
  if (cg == 1 && mg == 1) return ConvKind::kDepthwise;
  return ConvKind::kGeneric;
}

// Output columns per invocation of the plain GEMM kernel (conv.comp PX): 8, or 4 on a GPU
// where 8 would give fewer invocations than it holds (PP-OCRv4 det 640's first convs ran at
// half OpenCL's speed, whose kernel takes 4). TESSERA_VULKAN_CONV_COLUMNS=4 or 8 forces one.
int64_t gemmColumns(int64_t rows, int64_t width, DeviceKind device) {
  if (const char* e = std::getenv("TESSERA_VULKAN_CONV_COLUMNS")) {
    if (std::strcmp(e, "4") == 0) return 4;
    if (std::strcmp(e, "8") == 0) return 8;
  }
  return device != DeviceKind::kCPU && rows * ((width + 7) / 8) < kGpuTargetInvocations ? 4 : 8;
}

// The kernel build, its tile count (P[0]) and invocations per tile of one conv.
struct ConvTiling {
  ShaderId shader;
  int64_t tiles;
  int lanes;
};

ConvTiling chooseTiling(ConvKind kind, const ConvShape& cs, int64_t taps, bool image, DeviceKind device) {
  const WindowGeometry w3 = cs.window.padTo3D();
  const int64_t m4 = (cs.outChannels + 3) / 4, reduction = (cs.inChannels / cs.group + 3) / 4 * taps;
  const int64_t rows = cs.batch * w3.output[0] * w3.output[1], width = w3.output[2];
  if (kind == ConvKind::kDepthwise)
    return {image ? vkshaders::conv_DEPTHWISE_IMAGE : vkshaders::conv_DEPTHWISE, rows * m4 * ((width + 3) / 4), 1};
  if (kind == ConvKind::kGeneric)
    return {image ? vkshaders::conv_GENERIC_IMAGE : vkshaders::conv_GENERIC, rows * m4 * ((width + 3) / 4), 1};
  // Few output tiles: each tile's reduction split over several invocations (GEMM_SPLIT, 4
  // columns a tile; core/src/SplitReduction.hpp).
  const int64_t tiles4 = rows * m4 * ((width + 3) / 4);
  const int lanes = splitReductionLanes(tiles4, reduction, device, "TESSERA_VULKAN_SPLIT");
  if (lanes > 1) return {image ? vkshaders::conv_GEMM_SPLIT_IMAGE : vkshaders::conv_GEMM_SPLIT, tiles4, lanes};
  if (gemmColumns(rows * m4, width, device) == 4)
    return {image ? vkshaders::conv_GEMM4_IMAGE : vkshaders::conv_GEMM4, tiles4, 1};
  return {image ? vkshaders::conv_GEMM_IMAGE : vkshaders::conv_GEMM, rows * m4 * ((width + 7) / 8), 1};
}

class VulkanConv final : public VulkanExecution {
 public:
  VulkanConv(Backend* b, const Node& n, const ConvParams& p, bool images)
      : VulkanExecution(b, n.label()), params_(p), images_(images) {}

  WorkEstimate work(const Tensors& in, const Tensors& out) const override { return convWork(in, out); }
  // Constant weights are packed on the host once per plan (vkops::packConvWeights), and a
  // constant bias uploaded in fp32 (ConvWeights.hpp).
  bool readsConstantOnHost(size_t input) const override { return input == 1 || input == 2; }

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), Layout::kNCHW);
    (*in)[0] = (*out)[0] = images_ ? Layout::kNC4HW4 : Layout::kNCHW;
    if (available.size() > kConvSumInput) (*in)[kConvSumInput] = (*out)[0];  // Z is read as y is written
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    ConvShape cs;
    TESSERA_RETURN_IF_ERROR(resolveConv(params_, in[0]->shape(), in[1]->shape(), &cs));
    const bool hasBias = in.size() > 2 && in[2];
    const Tensor* z = convSumInput(in);
    const ConvKind kind = kindOf(cs);
    const int64_t m4 = (cs.outChannels + 3) / 4;
    const int64_t cg = cs.inChannels / cs.group, k = in[1]->elementCount() / (cs.outChannels * cg);
    const ConvTiling tiling = chooseTiling(kind, cs, k, images_, vk().deviceKind());
    const int64_t tiles = tiling.tiles;
    const int lanes = tiling.lanes;
    const FusedActivation& act = params_.activation;
    std::vector<uint32_t> p = {vkops::u32(tiles), vkops::u32(cs.inChannels), vkops::u32(cs.outChannels),
                               vkops::u32(cs.group), hasBias ? 1u : 0u, static_cast<uint32_t>(act.kind),
                               floatBits(act.alpha), floatBits(act.beta)};
    vkops::pushWindow(p, cs.window, false);
    p.push_back(floatBits(act.scale));
    p.push_back(floatBits(act.shift));
    p.push_back(z ? 1u : 0u);
    p.push_back(static_cast<uint32_t>(lanes));
    if (lanes > 1) countSplitReductionPlan();
    // The weights: constant ones arrive on the host (readsConstantOnHost) and are packed and
    // uploaded now; computed ones are on the device and packed by conv_weights.comp each run.
    const bool hostWeights = in[1]->backend() != &vk();
    VulkanBinding weights;
    if (kind == ConvKind::kGeneric) {  // read as they are, [M][C/group][K]
      TESSERA_RETURN_IF_ERROR(vkops::fp32ConvOperand(*this, vk(), in[1], &weights));
    } else {  // 4-channel blocks
      const int64_t floats = kind == ConvKind::kGemm ? m4 * ((cg + 3) / 4) * k * 16 : m4 * k * 4;
      const auto packing = kind == ConvKind::kGemm ? vkops::WeightPacking::kGemm : vkops::WeightPacking::kDepthwise;
      if (hostWeights) {
        TESSERA_RETURN_IF_ERROR(vkops::uploadWeights(
            vk(), vkops::packConvWeights(in[1]->data<float>(), packing, cs.outChannels, cg, k, 0, floats), &weights));
      } else {
        TESSERA_RETURN_IF_ERROR(vk().planDeviceBuffer(floats * sizeof(float), &weights));
        TESSERA_RETURN_IF_ERROR(dispatch(kind == ConvKind::kGemm ? vkshaders::conv_weights_GEMM
                                                                 : vkshaders::conv_weights_DEPTHWISE,
                                         {VulkanBackend::binding(in[1]), weights},
                                         {vkops::u32(floats), vkops::u32(cs.outChannels), vkops::u32(cg), vkops::u32(k)},
                                         floats));
      }
    }
    VulkanBinding bias = weights;  // bound, unread, when there is none
    if (hasBias) TESSERA_RETURN_IF_ERROR(vkops::fp32ConvOperand(*this, vk(), in[2], &bias));
    return dispatch(tiling.shader,
                    {VulkanBackend::binding(in[0]), weights, bias,
                     VulkanBackend::binding(out[0]), VulkanBackend::binding(z ? z : in[0])},
                    p, tiles * lanes);
  }

 private:
  ConvParams params_;
  bool images_;
};

TESSERA_VK_CREATOR(createConv) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1] || !allFloat32(inputs) || !allFloat32(outputs)) return nullptr;
  if (!vkops::fits32(inputs) || !vkops::fits32(outputs)) return nullptr;
  ConvParams p;
  if (!ConvParams::parse(node, &p).isOk()) return nullptr;
  ConvShape cs;
  if (!resolveConv(p, inputs[0]->shape(), inputs[1]->shape(), &cs).isOk()) return nullptr;
  if (cs.window.rank < 1 || cs.window.rank > 3) return nullptr;
  auto* vk = static_cast<VulkanBackend*>(b);
  const bool images = cs.window.rank <= 2 && vk->imagesFit({inputs[0], outputs[0]});  // Z has y's shape
  return std::make_unique<VulkanConv>(b, node, p, images);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Conv, createConv);

}  // namespace tessera
