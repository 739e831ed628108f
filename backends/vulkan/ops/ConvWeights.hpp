// Conv / ConvTranspose weights in the layouts conv.comp and conv_transpose.comp read. Constant
// weights are packed here, on the host, once per plan and uploaded; weights computed by the
// graph are packed on the GPU by conv_weights.comp each run, with the same index rule.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/vulkan/VulkanOps.hpp"
#include "tessera/DataType.hpp"

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

// `values` in a device buffer living as long as the plan, in the backend's storage type
// (fp16 in fp16 mode).
inline Status uploadWeights(VulkanBackend& vk, const std::vector<float>& values, VulkanBinding* out) {
  if (!vk.fp16()) return vk.planUpload(values.data(), values.size() * sizeof(float), out);
  std::vector<uint16_t> half(values.size());
  for (size_t i = 0; i < values.size(); ++i)  // saturating, as the kernels' ST() does
    half[i] = floatToHalf(std::min(65504.f, std::max(-65504.f, values[i])));
  return vk.planUpload(half.data(), half.size() * sizeof(uint16_t), out);
}

}  // namespace vkops
}  // namespace tessera
