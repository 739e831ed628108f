// Vulkan elementwise binary ops with numpy broadcasting: Add Sub Mul Div Pow, variadic
// Max Min Sum Mean (folded left to right, Mean scaled at the last step), and PRelu.
// Kernel: shaders/vulkan/binary.comp.
#include "backends/vulkan/VulkanOps.hpp"
#include "ops/Binary.hpp"

namespace tessera {
namespace {

enum Code : uint32_t { kAdd = 0, kSub, kMul, kDiv, kPow, kMax, kMin, kPRelu, kAddScale };

class VulkanBinary final : public VulkanExecution {
 public:
  VulkanBinary(Backend* b, const Node& n, uint32_t code, bool mean)
      : VulkanExecution(b, n.label()), code_(code), mean_(mean) {}

  Status onResize(const Tensors& in, const Tensors& out) override {
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
      TESSERA_RETURN_IF_ERROR(dispatch(vkshaders::ShaderId::binary,
                                       {VulkanBackend::binding(a), VulkanBackend::binding(in[k]),
                                        VulkanBackend::binding(out[0])}, p, (n + 3) / 4));
    }
    return Status::ok();
  }

 private:
  uint32_t code_;
  bool mean_;
};

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
  return std::make_unique<VulkanBinary>(b, node, code, p.kind == BinaryKind::kMean);
}

TESSERA_VK_CREATOR(createPRelu) {
  if (inputs.size() != 2 || !supported(inputs, outputs)) return nullptr;
  return std::make_unique<VulkanBinary>(b, node, kPRelu, false);
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

}  // namespace tessera
