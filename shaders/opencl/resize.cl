// Resize / Upsample on NC4HW4 over H and W: every mode (nearest, linear, cubic) and
// coordinate rule reduces to per-axis taps precomputed on the host (ops/Resize.hpp):
// up to 4 (index, weight) pairs per output row and column; index -1 marks a coordinate
// outside the input (tf_crop_and_resize), which takes the extrapolation value. -DHAS_Z adds
// the sum Z (ops/Resize.hpp, the output's shape and storage) to every value.
#include "common.h"

// global: (C4 * outW, N * outH)
__kernel void resize_nc4(NC4_IN(src), NC4_OUT(dst), __global const int4* hIdx,
                         __global const float4* hW, __global const int4* wIdx,
                         __global const float4* wW, int C, int inH, int inW, int outH, int outW,
                         float extrapolation, int height, NC4_IN(z)) {
  const int x = get_global_id(0), y = get_global_id(1);
  const int C4 = (C + 3) / 4;
  const int outWidth = C4 * outW;
  if (x >= outWidth || y >= height) return;
  const int c4 = x / outW, ow = x - c4 * outW;
  const int n = y / outH, oh = y - n * outH;
  const int4 hi = hIdx[oh], wi = wIdx[ow];
  const float4 hw = hW[oh], ww = wW[ow];
  float4 acc;
  if (hi.x < 0 || wi.x < 0) {
    acc = (float4)(extrapolation);
  } else {
    acc = (float4)(0.f);
    const int inWidth = C4 * inW;
    const int hs[4] = {hi.x, hi.y, hi.z, hi.w};
    const float hws[4] = {hw.x, hw.y, hw.z, hw.w};
    const int ws[4] = {wi.x, wi.y, wi.z, wi.w};
    const float wws[4] = {ww.x, ww.y, ww.z, ww.w};
    for (int i = 0; i < 4; ++i) {
      if (hws[i] == 0.f) continue;
      float4 row = (float4)(0.f);
      for (int j = 0; j < 4; ++j) {
        if (wws[j] == 0.f) continue;
        row += wws[j] * LOAD4(src, c4 * inW + ws[j], n * inH + hs[i], inWidth);
      }
      acc += hws[i] * row;
    }
  }
#ifdef HAS_Z
  acc += LOAD4(z, x, y, outWidth);
#endif
  const int c = c4 * 4;
  if (c + 4 > C) {
    acc.y = c + 1 < C ? acc.y : 0.f;
    acc.z = c + 2 < C ? acc.z : 0.f;
    acc.w = c + 3 < C ? acc.w : 0.f;
  }
  STORE4(dst, x, y, outWidth, acc);
}
