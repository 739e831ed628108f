// Vulkan elementwise unary ops and activations (every UnaryKind), and Clip with constant
// bounds, on NC4HW4 images when the input already is one, else on buffers.
// Kernel: shaders/vulkan/unary.comp.
#include <limits>

#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Clip.hpp"
#include "ops/Unary.hpp"
#include "vulkan/shaders/clip.hpp"
#include "vulkan/shaders/unary.hpp"

namespace tessera {
namespace {

constexpr int kClipCode = 100;

class VulkanUnary final : public VulkanExecution {
 public:
  VulkanUnary(Backend* b, const Node& n, int code, float alpha, float beta, float gamma, bool images)
      : VulkanExecution(b, n.label()), code_(code), alpha_(alpha), beta_(beta), gamma_(gamma), images_(images) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    vkops::followImages(images_, available, in, out);
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    std::vector<uint32_t> p = {0u, vkops::u32(code_), floatBits(alpha_), floatBits(beta_), floatBits(gamma_)};
    const VulkanBinding x = VulkanBackend::binding(in[0]), y = VulkanBackend::binding(out[0]);
    if (in[0]->layout() == Layout::kNC4HW4) {
      const int64_t pixels = vkops::pushGrid(p, out[0]->shape());
      p[0] = vkops::u32(pixels);
      return dispatch(vkshaders::unary_IMAGE, {x, y}, p, pixels);
    }
    const int64_t n = out[0]->elementCount();
    p[0] = vkops::u32(n);
    return dispatch(vkshaders::unary_PLAIN, {x, y}, p, (n + 3) / 4);  // 4 elements per invocation
  }

 private:
  int code_;
  float alpha_, beta_, gamma_;
  bool images_;
};

TESSERA_VK_CREATOR(createUnary) {
  if (!allFloat32(inputs) || !allFloat32(outputs) || !vkops::fits32(inputs)) return nullptr;
  UnaryParams p;
  if (!UnaryParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<VulkanUnary>(b, node, static_cast<int>(p.kind), p.alpha, p.beta, p.gamma,
                                       vkops::imagesFit(b, {inputs[0], outputs[0]}));
}

// Clip whose bounds are computed by the graph: read by the kernel (shaders/vulkan/clip.comp).
class VulkanClipTensor final : public VulkanExecution {
 public:
  VulkanClipTensor(Backend* b, const Node& n) : VulkanExecution(b, n.label()) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Tensor* lo = in.size() > 1 && in[1] && in[1]->elementCount() > 0 ? in[1] : nullptr;
    const Tensor* hi = in.size() > 2 && in[2] && in[2]->elementCount() > 0 ? in[2] : nullptr;
    const int64_t n = out[0]->elementCount();
    return dispatch(vkshaders::clip,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(lo ? lo : in[0]),
                     VulkanBackend::binding(hi ? hi : in[0]), VulkanBackend::binding(out[0])},
                    {vkops::u32(n), lo ? 1u : 0u, hi ? 1u : 0u}, n);
  }
};

// A bound input, which must be a constant scalar here (the kernel takes it as a parameter).
bool constantBound(const Tensor* t, float* v) {
  if (!t || t->elementCount() == 0) return true;  // omitted: keep the open default
  if (!t->data() || t->dtype() != DataType::kF32 || t->elementCount() != 1) return false;
  *v = t->data<float>()[0];
  return true;
}

TESSERA_VK_CREATOR(createClip) {
  if (!allFloat32(inputs, 1) || !allFloat32(outputs)) return nullptr;
  ClipParams p;
  if (!ClipParams::parse(node, &p).isOk()) return nullptr;
  float lo = p.minAttr, hi = p.maxAttr;
  if (p.boundsFromInputs) {
    lo = std::numeric_limits<float>::lowest();
    hi = std::numeric_limits<float>::max();
    if (!constantBound(inputs.size() > 1 ? inputs[1] : nullptr, &lo) ||
        !constantBound(inputs.size() > 2 ? inputs[2] : nullptr, &hi)) {
      for (size_t i = 1; i < inputs.size() && i < 3; ++i)
        if (inputs[i] && inputs[i]->elementCount() > 1) return nullptr;
      if (!allFloat32(inputs)) return nullptr;
      return std::make_unique<VulkanClipTensor>(b, node);
    }
  }
  return std::make_unique<VulkanUnary>(b, node, kClipCode, lo, hi, 0.f, vkops::imagesFit(b, {inputs[0], outputs[0]}));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, Abs, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Neg, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Reciprocal, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Floor, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Ceil, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Round, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Sqrt, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Exp, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Log, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Sin, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Cos, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Tan, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Erf, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Sign, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Tanh, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Sigmoid, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Relu, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, LeakyRelu, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Elu, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Selu, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Celu, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Softplus, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Softsign, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, ThresholdedRelu, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, HardSigmoid, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, HardSwish, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Identity, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Acos, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Asin, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Atan, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Acosh, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Asinh, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Atanh, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Cosh, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Sinh, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Shrink, createUnary);
TESSERA_REGISTER_EXECUTION(kVulkan, Clip, createClip);

}  // namespace tessera
