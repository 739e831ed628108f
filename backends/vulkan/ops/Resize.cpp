// Vulkan Resize / Upsample: per-axis taps from resizeAxisTaps (the same ones the CPU uses),
// uploaded once at resize time as a table. Resizes of H and W only (rank 3-4) run on NC4HW4
// images when the input comes as one; the optional sum Z (ops/Resize.hpp) is added as the
// values are stored. Kernel: shaders/vulkan/resize.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Resize.hpp"
#include "vulkan/shaders/resize.hpp"

namespace tessera {
namespace {

class VulkanResize final : public VulkanExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  VulkanResize(Backend* b, const Node& n, const ResizeParams& p, ResizeGeometry g, bool images)
      : VulkanExecution(b, n.label()), params_(p), geometry_(std::move(g)), images_(images) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    vkops::followImages(images_, available, in, out);
    if (in->size() > kResizeSumInput) (*in)[kResizeSumInput] = (*out)[0];  // Z as y is stored
  }

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
    // The sum Z (ops/Resize.hpp), or x in its place, unread (P[21] = 0).
    const Tensor* z = in.size() > kResizeSumInput ? in[kResizeSumInput] : nullptr;
    const VulkanBinding zb = VulkanBackend::binding(z ? z : in[0]);
    VulkanBinding taps;
    if (in[0]->layout() == Layout::kNC4HW4) {  // axes H (rank 4) and W: a 1-tap H for rank 3
      if (rank == 3) {
        offsets.insert(offsets.begin() + 2, static_cast<int64_t>(table.size()));
        table.insert(table.end(), {1.f, 0.f, 0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 0.f});
      }
      TESSERA_RETURN_IF_ERROR(vk().planConstant(table.data(), table.size() * sizeof(float), &taps));
      const Nc4Geometry gx = nc4Geometry(in[0]->shape()), gy = nc4Geometry(out[0]->shape());
      std::vector<uint32_t> p = {vkops::u32(gy.width() * gy.height())};
      for (int64_t v : {gx.c, gx.h, gx.w, gy.h, gy.w, offsets[2], offsets[3]}) p.push_back(vkops::u32(v));
      p.resize(20, 0u);
      p.push_back(floatBits(params_.extrapolationValue));
      p.push_back(z ? 1u : 0u);
      return dispatch(vkshaders::resize_IMAGE, {VulkanBackend::binding(in[0]), taps, VulkanBackend::binding(out[0]), zb},
                      p, gy.width() * gy.height());
    }
    TESSERA_RETURN_IF_ERROR(vk().planConstant(table.data(), table.size() * sizeof(float), &taps));
    const int64_t n = out[0]->elementCount();
    std::vector<uint32_t> p = {vkops::u32(n), vkops::u32(rank)};
    vkops::push6(p, geometry_.output, 1);
    vkops::push6(p, geometry_.input, 1);
    vkops::push6(p, offsets);
    p.push_back(floatBits(params_.extrapolationValue));
    p.push_back(z ? 1u : 0u);
    return dispatch(vkshaders::resize_PLAIN, {VulkanBackend::binding(in[0]), taps, VulkanBackend::binding(out[0]), zb},
                    p, n);
  }

 private:
  ResizeParams params_;
  ResizeGeometry geometry_;
  bool images_;
};

// Whether the resize keeps N and C (identity taps) on a rank 3-4 tensor that fits images.
bool imageResizable(Backend* b, const ResizeParams& p, const ResizeGeometry& g, const Tensors& inputs,
                    const Tensors& outputs) {
  if (g.output.size() < 3 || g.output.size() > 4) return false;
  for (int a = 0; a < 2; ++a) {
    if (g.input[a] != g.output[a]) return false;
    const std::vector<ResizeTaps> taps = resizeAxisTaps(p, g, a);
    for (size_t o = 0; o < taps.size(); ++o)
      if (taps[o].outside || taps[o].count != 1 || taps[o].index[0] != static_cast<int64_t>(o) ||
          taps[o].weight[0] != 1.f)
        return false;
  }
  Tensors all = {inputs[0], outputs[0]};
  if (inputs.size() > kResizeSumInput && inputs[kResizeSumInput]) all.push_back(inputs[kResizeSumInput]);
  return vkops::imagesFit(b, all);
}

const Tensor* inputAt(const Tensors& in, int i) {
  return i >= 0 && i < static_cast<int>(in.size()) ? in[i] : nullptr;
}

TESSERA_VK_CREATOR(createResize) {
  if (!inputs[0] || inputs[0]->dtype() != DataType::kF32 || !allFloat32(outputs) || !vkops::fits32(outputs)) return nullptr;
  if (inputs.size() > kResizeSumInput && inputs[kResizeSumInput] && inputs[kResizeSumInput]->dtype() != DataType::kF32)
    return nullptr;
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
  const bool images = imageResizable(b, p, g, inputs, outputs);
  return std::make_unique<VulkanResize>(b, node, p, std::move(g), images);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Resize, createResize);
TESSERA_REGISTER_EXECUTION(kVulkan, Upsample, createResize);

}  // namespace tessera
