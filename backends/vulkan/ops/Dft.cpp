// Vulkan DFT (f32 data; fp16 storage in fp16 mode): opset 17 and 20, real or complex input,
// dft_length, inverse and onesided as on the CPU (ops/Dft.hpp). A direct O(L^2) sum per
// signal, parallel over every output bin (shaders/vulkan/dft.comp), with the L twiddles
// uploaded at resize. dft_length and opset 20's axis must be known when planned (the
// Session specializes run-time ones); they are read on the host, never bound.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Dft.hpp"
#include "vulkan/shaders/dft.hpp"

namespace tessera {
namespace {

// The direct sum costs L multiply-adds per bin: longer transforms stay on the CPU's FFT.
// (Lavapipe also ends an invocation's loops after 65535 iterations in all.)
constexpr int64_t kMaxLength = 1 << 14;

const Tensor* optionalInput(const Tensors& inputs, size_t i) {
  return i < inputs.size() && inputs[i] && inputs[i]->dtype() != DataType::kUnknown ? inputs[i] : nullptr;
}

class VulkanDft final : public VulkanExecution {
 public:
  VulkanDft(Backend* b, const Node& n, const DftParams& p) : VulkanExecution(b, n.label()), node_(n), params_(p) {}
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }

  Status onResize(const Tensors& in, const Tensors& out) override {
    DftGeometry g;
    TESSERA_RETURN_IF_ERROR(resolveDft(node_, params_, in[0]->shape(), optionalInput(in, 1), optionalInput(in, 2), &g));
    const std::vector<float> tw = dftTwiddles(g.length, params_.inverse);
    VulkanBinding table;
    TESSERA_RETURN_IF_ERROR(vk().planUpload(tw.data(), tw.size() * sizeof(float), &table));
    const int64_t count = out[0]->elementCount() / 2;
    const float scale = params_.inverse ? static_cast<float>(1.0 / static_cast<double>(g.length)) : 1.f;
    const std::vector<uint32_t> p = {vkops::u32(count), vkops::u32(g.bins), vkops::u32(g.inner),
                                     vkops::u32(g.signal), vkops::u32(std::min(g.signal, g.length)),
                                     vkops::u32(g.length), vkops::u32(g.channels), floatBits(scale)};
    return dispatch(vkshaders::dft, {VulkanBackend::binding(in[0]), table, VulkanBackend::binding(out[0])}, p, count);
  }

 private:
  Node node_;
  DftParams params_;
};

TESSERA_VK_CREATOR(createDft) {
  if (inputs.empty() || !inputs[0] || !allFloat32(inputs, 1) || outputs.empty() || !allFloat32(outputs)) return nullptr;
  if (!vkops::fits32(inputs) || !vkops::fits32(outputs) || outputs[0]->elementCount() == 0) return nullptr;
  DftParams p;
  DftGeometry g;
  if (!DftParams::parse(node, &p).isOk()) return nullptr;
  if (!resolveDft(node, p, inputs[0]->shape(), optionalInput(inputs, 1), optionalInput(inputs, 2), &g).isOk())
    return nullptr;  // a dft_length or axis only known at run time: the CPU
  if (g.length > kMaxLength) return nullptr;
  return std::make_unique<VulkanDft>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, DFT, createDft);

}  // namespace tessera
