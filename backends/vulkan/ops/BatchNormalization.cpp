// Vulkan BatchNormalization (inference). With constant parameters the per-channel scale and
// shift are folded on the host into an fp32 table (exact, and safe in fp16 mode, where a
// variance may exceed the fp16 range); otherwise the kernel reads the four parameters.
// The folded form runs on NC4HW4 images when its input comes as one.
// Kernel: shaders/vulkan/batchnorm.comp (FOLDED, FULL, FOLDED_IMAGE).
#include <cmath>

#include "backends/vulkan/VulkanOps.hpp"
#include "ops/BatchNormalization.hpp"
#include "vulkan/shaders/batchnorm.hpp"

namespace tessera {
namespace {

class VulkanBatchNorm final : public VulkanExecution {
 public:
  VulkanBatchNorm(Backend* b, const Node& n, float eps, std::vector<float> table, bool images)
      : VulkanExecution(b, n.label()), eps_(eps), table_(std::move(table)), images_(images && !table_.empty()) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    vkops::followImages(images_, available, in, out);
  }

  Status onResize(const Tensors& in, const Tensors& out) override {
    const Shape& s = in[0]->shape();
    int64_t spatial = 1;
    for (size_t d = 2; d < s.size(); ++d) spatial *= s[d];
    const int64_t n = out[0]->elementCount();
    std::vector<uint32_t> p = {vkops::u32(n), vkops::u32(s[1]), vkops::u32(spatial), floatBits(eps_)};
    if (!table_.empty()) {
      VulkanBinding table;
      TESSERA_RETURN_IF_ERROR(vk().planConstant(table_.data(), table_.size() * sizeof(float), &table));
      if (in[0]->layout() == Layout::kNC4HW4) {
        const Nc4Geometry g = nc4Geometry(s);
        p[0] = vkops::u32(g.width() * g.height());
        p.push_back(vkops::u32(g.h));
        p.push_back(vkops::u32(g.w));
        return dispatch(vkshaders::batchnorm_FOLDED_IMAGE,
                        {VulkanBackend::binding(in[0]), table, VulkanBackend::binding(out[0])}, p, g.width() * g.height());
      }
      return dispatch(vkshaders::batchnorm_FOLDED,
                      {VulkanBackend::binding(in[0]), table, VulkanBackend::binding(out[0])}, p, n);
    }
    return dispatch(vkshaders::batchnorm_FULL,
                    {VulkanBackend::binding(in[0]), VulkanBackend::binding(in[1]), VulkanBackend::binding(in[2]),
                     VulkanBackend::binding(in[3]), VulkanBackend::binding(in[4]), VulkanBackend::binding(out[0])},
                    p, n);
  }

 private:
  float eps_;
  std::vector<float> table_;  // k, b per channel; empty when the parameters are not constant
  bool images_;
};

TESSERA_VK_CREATOR(createBatchNorm) {
  if (inputs.size() != 5 || outputs.size() != 1 || !allFloat32(inputs) || !allFloat32(outputs)) return nullptr;
  for (const Tensor* t : inputs) if (!t) return nullptr;
  if (inputs[0]->rank() < 2 || !vkops::fits32(inputs)) return nullptr;
  BatchNormalizationParams p;
  if (!BatchNormalizationParams::parse(node, &p).isOk()) return nullptr;
  const int64_t C = inputs[0]->dim(1);
  std::vector<float> table;
  bool constant = true;
  for (size_t i = 1; i < 5; ++i) constant = constant && inputs[i]->data() && inputs[i]->elementCount() == C;
  if (constant) {
    const float* scale = inputs[1]->data<float>();
    const float* bias = inputs[2]->data<float>();
    const float* mean = inputs[3]->data<float>();
    const float* var = inputs[4]->data<float>();
    for (int64_t c = 0; c < C; ++c) {
      const double k = static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + p.epsilon);
      table.push_back(static_cast<float>(k));
      table.push_back(static_cast<float>(bias[c] - mean[c] * k));
    }
  }
  return std::make_unique<VulkanBatchNorm>(b, node, p.epsilon, std::move(table),
                                           vkops::imagesFit(b, {inputs[0], outputs[0]}));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kVulkan, BatchNormalization, createBatchNorm);

}  // namespace tessera
