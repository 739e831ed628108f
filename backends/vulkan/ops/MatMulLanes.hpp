// matmul.comp's SPLIT build, for few 4x4 blocks and a long K (core/src/SplitReduction.hpp):
// how many invocations share a block, pushed as P[26] after MatMul's and Gemm's 26
// parameters (1 runs the BLOCK build), then the fused activation (P[27..29]; Gemm has none).
#pragma once
#include <cstdint>
#include <vector>

#include "core/src/SplitReduction.hpp"
#include "ops/FusedActivation.hpp"

namespace tessera {
namespace vkops {

inline int matmulLanes(DeviceKind device, int64_t blocks, int64_t K, std::vector<uint32_t>* p,
                       const FusedActivation& act = FusedActivation()) {
  const int lanes = splitReductionLanes(blocks, K, device, "TESSERA_VULKAN_SPLIT");
  p->push_back(static_cast<uint32_t>(lanes));
  p->push_back(static_cast<uint32_t>(act.kind));
  p->push_back(floatBits(act.alpha));
  p->push_back(floatBits(act.beta));
  if (lanes > 1) countSplitReductionPlan();
  return lanes;
}

}  // namespace vkops
}  // namespace tessera
