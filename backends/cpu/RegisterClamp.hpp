// RegisterClamp: the fused activations a CPU kernel applies in its registers as it stores.
#pragma once
#include <algorithm>

#include "ops/FusedActivation.hpp"

namespace tessera {

// The fused activations a conv kernel can apply in its registers just before it stores:
// Relu (lower bound only) and Clip, when nothing else follows them (no Z sum, no scale and
// shift). The others are a pass over the tile after it is stored (applyFusedActivation),
// which reloads what was just written: a ReLU6 after MobileNetV2's 16 -> 96 pointwise conv
// at 112x112 took 40-75% on top of the conv; on 7-wide depthwise rows the reloads waited on
// the masked stores before them. The same values as the pass's max(lo, min(hi, v)), NaN
// included, when applied as max(min(v, hi), lo) with the SSE/AVX min and max (which return
// their second operand when either is NaN). (AVX-512 kernels write min and max as
// _mm512_maskz_min_ps(0xFFFF, ...): the plain intrinsics' undefined pass-through trips GCC
// 12's uninitialised-value warning, 66 of them a build.)
struct RegisterClamp {
  bool lower = false, upper = false;
  float lo = 0.f, hi = 0.f;

  static RegisterClamp of(const FusedActivation& a, bool sumFollows) {
    RegisterClamp c;
    if (sumFollows || a.hasAffine()) return c;
    if (a.kind == FusedActivation::kRelu) c.lower = true;
    if (a.kind == FusedActivation::kClip) c.lower = c.upper = true, c.lo = a.alpha, c.hi = a.beta;
    return c;
  }
  bool any() const { return lower || upper; }
  // One value, as the vector kernels do it.
  float apply(float v) const {
    if (upper) v = std::min(hi, v);
    if (lower) v = std::max(lo, v);
    return v;
  }
};

}  // namespace tessera
