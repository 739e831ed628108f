// Vulkan Resize / Upsample: per-axis taps from resizeAxisTaps (the same ones the CPU uses),
// uploaded once at resize time as a table. Kernel: shaders/vulkan/resize.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Resize.hpp"

namespace tessera {
namespace {

class VulkanResize final : public VulkanExecution {
 public:
  VulkanResize(Backend* b, const Node& n, const ResizeParams& p, ResizeGeometry g)
      : VulkanExecution(b, n.label()), params_(p), geometry_(std::move(g)) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const int rank = static_cast<int>(geometry_.output.size());
    std::vector<float> table;
    std::vector<int64_t> offsets;
    for (int a = 0; a < rank; ++a) {
      offsets.push_back(static_cast<int64_t>(table.size()));
      for (const ResizeTaps& t : resizeAxisTaps(params_, geometry_, a)) {
        table.push_back(t.outside ? -1.f : static_cast<float>(t.count));
        for (int k = 0; k < 4; ++k) table.push_back(static_cast<float>(t.index[k]));
        for (int k = 0; k < 4; ++k) table.push_back(t.weight[k]);
        table.push_back(0.f);
      }
    }
    VulkanBinding taps;
    TESSERA_RETURN_IF_ERROR(vk().planConstant(table.data(), table.size() * sizeof(float), &taps));
    const int64_t n = out[0]->elementCount();
    std::vector<uint32_t> p = {vkops::u32(n), vkops::u32(rank)};
    vkops::push6(p, geometry_.output, 1);
    vkops::push6(p, geometry_.input, 1);
    vkops::push6(p, offsets);
    p.push_back(floatBits(params_.extrapolationValue));
    return dispatch(vkshaders::ShaderId::resize, {VulkanBackend::binding(in[0]), taps, VulkanBackend::binding(out[0])}, p, n);
  }

 private:
  ResizeParams params_;
  ResizeGeometry geometry_;
};

const Tensor* inputAt(const Tensors& in, int i) {
  return i >= 0 && i < static_cast<int>(in.size()) ? in[i] : nullptr;
}

TESSERA_VK_CREATOR(createResize) {
  if (!inputs[0] || inputs[0]->dtype() != DataType::kF32 || !allFloat32(outputs) || !vkops::fits32(outputs)) return nullptr;
  if (inputs[0]->rank() == 0 || inputs[0]->rank() > vkops::kMaxRank) return nullptr;
  ResizeParams p;
  if (!ResizeParams::parse(node, &p).isOk()) return nullptr;
  const Tensor* roi = inputAt(inputs, p.roiInput);
  const Tensor* scales = inputAt(inputs, p.scalesInput);
  const Tensor* sizes = inputAt(inputs, p.sizesInput);
  for (const Tensor* t : {roi, scales, sizes})
    if (t && t->elementCount() > 0 && !t->data()) return nullptr;  // values known only at run time
  ResizeGeometry g;
  if (!resolveResize(p, inputs[0]->shape(), roi, scales, sizes, &g).isOk()) return nullptr;
  if (g.output != outputs[0]->shape()) return nullptr;
  return std::make_unique<VulkanResize>(b, node, p, g);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Resize, createResize);
TESSERA_REGISTER_EXECUTION(kVulkan, Upsample, createResize);

}  // namespace tessera
