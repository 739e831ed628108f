// Conv / ConvTranspose weights in the layouts conv.comp and conv_transpose.comp read. Constant
// weights are packed here, on the host, once per plan and uploaded; weights computed by the
// graph are packed on the GPU by conv_weights.comp each run, with the same index rule.
// Weights and biases stay fp32 in fp16 mode (only the tensors between ops are fp16): rounded
// to fp16 they alone move PaddleOCR's detector map by up to 0.15, more than the rest of fp16
// storage together, for a few percent of the bytes a conv reads.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/vulkan/VulkanOps.hpp"
#include "vulkan/shaders/conv_weights.hpp"

namespace tessera {
namespace vkops {

enum class WeightPacking { kGemm, kDepthwise, kTransposed };

// Packed float i of `floats` (see conv_weights.comp): lane = output channel within a block
// of 4, zero past M and C/group. `w` is [M][Cg][K] (Conv) or [C][M/group][K] (ConvTranspose).
inline std::vector<float> packConvWeights(const float* w, WeightPacking packing, int64_t M, int64_t Cg, int64_t K,
                                          int64_t Mg, int64_t floats) {
  std::vector<float> out(floats, 0.f);
  const int64_t Cg4 = (Cg + 3) / 4;
  for (int64_t i = 0; i < floats; ++i) {
    const int64_t lane = i % 4;
    int64_t rest = i / 4, c = 0, k = 0, m = 0;
    if (packing == WeightPacking::kDepthwise) {
      k = rest % K;
      m = (rest / K) * 4 + lane;
    } else {
      const int64_t ci = rest % 4;
      rest /= 4;
      k = rest % K;
      rest /= K;
      c = (rest % Cg4) * 4 + ci;
      m = (rest / Cg4) * 4 + lane;
    }
    if (m >= M || c >= Cg) continue;
    out[i] = packing == WeightPacking::kTransposed ? w[(((m / Mg) * Cg + c) * Mg + m % Mg) * K + k]
                                                   : w[(m * Cg + c) * K + k];
  }
  return out;
}

// `values` in an fp32 device buffer living as long as the plan.
inline Status uploadWeights(VulkanBackend& vk, const std::vector<float>& values, VulkanBinding* out) {
  return vk.planUpload(values.data(), values.size() * sizeof(float), out);
}

// A conv operand read as it is, in fp32 (a bias, or weights the GENERIC kernels read
// unpacked): a constant one from the host; a computed one bound as it is in fp32 mode, and in
// fp16 mode converted each run into a buffer of the plan (conv_weights.comp COPY).
inline Status fp32ConvOperand(VulkanExecution& exec, VulkanBackend& vk, const Tensor* t, VulkanBinding* out) {
  if (t->backend() != &vk) {
    const float* v = t->data<float>();
    return uploadWeights(vk, std::vector<float>(v, v + t->elementCount()), out);
  }
  if (!vk.fp16()) {
    *out = VulkanBackend::binding(t);
    return Status::ok();
  }
  const int64_t n = t->elementCount();
  TESSERA_RETURN_IF_ERROR(vk.planDeviceBuffer(n * sizeof(float), out));
  return exec.dispatch(vkshaders::conv_weights_COPY, {VulkanBackend::binding(t), *out}, {u32(n)}, n);
}

}  // namespace vkops
}  // namespace tessera
