// Vulkan elementwise binary ops with numpy broadcasting: Add Sub Mul Div Pow, variadic
// Max Min Sum Mean (folded left to right, Mean scaled at the last step), PRelu, and Mod
// with fmod = 1 (C's fmod; the only Mod ONNX allows on floats). Two
// operands of the output's rank (3 or 4) broadcasting whole dimensions, or one of them a
// single value, run on NC4HW4 images when one comes as an image; the rest on buffers.
// Kernel: shaders/vulkan/binary.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Binary.hpp"
#include "ops/Mod.hpp"
#include "vulkan/shaders/binary.hpp"

namespace tessera {
namespace {

enum Code : uint32_t { kAdd = 0, kSub, kMul, kDiv, kPow, kMax, kMin, kPRelu, kAddScale, kMod };

class VulkanBinary final : public VulkanExecution {
 public:
  VulkanBinary(Backend* b, const Node& n, uint32_t code, bool mean, bool images)
      : VulkanExecution(b, n.label()), code_(code), mean_(mean), images_(images) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    bool anyImage = false;
    for (size_t i = 0; i < available.size(); ++i)
      anyImage = anyImage || (available[i] == Layout::kNC4HW4 && inputs[i]->elementCount() > 1);
    const bool images = images_ && anyImage;
    in->assign(available.size(), Layout::kNCHW);
    for (size_t i = 0; i < available.size(); ++i)
      if (images && inputs[i]->elementCount() > 1) (*in)[i] = Layout::kNC4HW4;
    (*out)[0] = images ? Layout::kNC4HW4 : Layout::kNCHW;
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    if (out[0]->layout() == Layout::kNC4HW4) return recordImages(in, out);
    const Shape& os = out[0]->shape();
    const int64_t n = out[0]->elementCount();
    if (in.size() == 1)  // a variadic op of one input is a copy
      return copy(VulkanBackend::binding(in[0]).buffer, VulkanBackend::binding(out[0]).buffer, vk().storageBytes(out[0]));
    // Step k combines the running result (the output, after the first step) with input k+1.
    for (size_t k = 1; k < in.size(); ++k) {
      const Tensor* a = k == 1 ? in[0] : out[0];
      const bool last = k + 1 == in.size();
      uint32_t code = code_;
      float scale = 1.f;
      if (mean_ && last) { code = kAddScale; scale = 1.f / static_cast<float>(in.size()); }
      std::vector<int64_t> dims(os.begin(), os.end());
      std::vector<int64_t> as = vkops::broadcastStrides(a->shape(), os), bs = vkops::broadcastStrides(in[k]->shape(), os);
      vkops::coalesce(&dims, {&as, &bs});
      std::vector<uint32_t> p = {vkops::u32(n), code, vkops::u32(dims.size())};
      vkops::push6(p, dims, 1);
      vkops::push6(p, as);
      vkops::push6(p, bs);
      p.push_back(floatBits(scale));
      TESSERA_RETURN_IF_ERROR(dispatch(vkshaders::binary_PLAIN,
                                       {VulkanBackend::binding(a), VulkanBackend::binding(in[k]),
                                        VulkanBackend::binding(out[0])}, p, (n + 3) / 4));
    }
    return Status::ok();
  }

  // Two operands, at least one an NC4HW4 image (see selectLayouts).
  Status recordImages(const Tensors& in, const Tensors& out) {
    const uint32_t code = mean_ ? kAddScale : code_;
    std::vector<uint32_t> p = {0u, code};
    const int64_t pixels = vkops::pushGrid(p, out[0]->shape());
    p[0] = vkops::u32(pixels);
    for (const Tensor* t : {in[0], in[1]}) {
      const Nc4Geometry g = nc4Geometry(t->shape());
      for (int64_t v : {g.n, g.c, g.h, g.w}) p.push_back(vkops::u32(v));
    }
    p.resize(21, 0u);
    p.push_back(floatBits(mean_ ? 0.5f : 1.f));
    using vkshaders::ShaderId;
    const ShaderId kernel = in[0]->layout() != Layout::kNC4HW4   ? vkshaders::binary_IMAGE_SCALAR_A
                            : in[1]->layout() != Layout::kNC4HW4 ? vkshaders::binary_IMAGE_SCALAR_B
                                                                 : vkshaders::binary_IMAGE;
    return dispatch(kernel, {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[1]), VulkanBackend::binding(out[0])},
                    p, pixels);
  }

 private:
  uint32_t code_;
  bool mean_;
  bool images_;
};

// Whether the NC4HW4 kernels can serve: two operands of the output's rank (3 or 4) that
// broadcast whole dimensions, or one of them a single value; all fit images.
bool imageCapable(Backend* b, const Tensors& inputs, const Tensors& outputs) {
  const Shape& out = outputs[0]->shape();
  if (inputs.size() != 2 || out.size() < 3 || out.size() > 4) return false;
  int scalars = 0;
  Tensors images{outputs[0]};
  for (Tensor* t : inputs) {
    if (t->elementCount() == 1) { ++scalars; continue; }
    if (t->shape().size() != out.size()) return false;
    for (size_t d = 0; d < out.size(); ++d)
      if (t->shape()[d] != out[d] && t->shape()[d] != 1) return false;
    images.push_back(t);
  }
  return scalars < 2 && vkops::imagesFit(b, images);
}

bool supported(const Tensors& inputs, const Tensors& outputs) {
  if (!allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs) || !vkops::fits32(outputs)) return false;
  if (outputs[0]->rank() > vkops::kMaxRank) return false;
  for (const Tensor* t : inputs) if (!t) return false;
  return true;
}

TESSERA_VK_CREATOR(createBinary) {
  if (!supported(inputs, outputs)) return nullptr;
  BinaryParams p;
  if (!BinaryParams::parse(node, &p).isOk()) return nullptr;
  uint32_t code = kAdd;
  switch (p.kind) {
    case BinaryKind::kAdd: case BinaryKind::kSum: case BinaryKind::kMean: code = kAdd; break;
    case BinaryKind::kSub: code = kSub; break;
    case BinaryKind::kMul: code = kMul; break;
    case BinaryKind::kDiv: code = kDiv; break;
    case BinaryKind::kPow: code = kPow; break;
    case BinaryKind::kMax: code = kMax; break;
    case BinaryKind::kMin: code = kMin; break;
  }
  return std::make_unique<VulkanBinary>(b, node, code, p.kind == BinaryKind::kMean, imageCapable(b, inputs, outputs));
}

TESSERA_VK_CREATOR(createPRelu) {
  if (inputs.size() != 2 || !supported(inputs, outputs)) return nullptr;
  return std::make_unique<VulkanBinary>(b, node, kPRelu, false, imageCapable(b, inputs, outputs));
}

TESSERA_VK_CREATOR(createMod) {
  ModParams p;
  if (inputs.size() != 2 || !supported(inputs, outputs) || !ModParams::parse(node, &p).isOk() || !p.fmod)
    return nullptr;
  return std::make_unique<VulkanBinary>(b, node, kMod, false, imageCapable(b, inputs, outputs));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Add, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, Sub, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, Mul, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, Div, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, Pow, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, Max, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, Min, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, Sum, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, Mean, createBinary);
TESSERA_REGISTER_EXECUTION(kVulkan, PRelu, createPRelu);
TESSERA_REGISTER_EXECUTION(kVulkan, Mod, createMod);

}  // namespace tessera
