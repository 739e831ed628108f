// MaxPool / AveragePool (and their global forms) on NC4HW4 tensors, 1-D and 2-D.
// -DPOOL_MAX or -DPOOL_AVG; -DCOUNT_INCLUDE_PAD divides by the taps inside the padded input.
#include "common.h"

// global: (C4 * outW, N * outH)
__kernel void pool(NC4_IN(src), NC4_OUT(dst), int C4, int inH, int inW, int outH, int outW,
                   int kH, int kW, int strideH, int strideW, int padH, int padW, int dilH,
                   int dilW, int padEndH, int padEndW, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  const int outWidth = C4 * outW;
  if (x >= outWidth || y >= height) return;
  const int c4 = x / outW, ow = x - c4 * outW;
  const int n = y / outH, oh = y - n * outH;
  const int inWidth = C4 * inW;
  const int ih0 = oh * strideH - padH, iw0 = ow * strideW - padW;
#ifdef POOL_MAX
  float4 acc = (float4)(-INFINITY);
#else
  float4 acc = (float4)(0.f);
#endif
  int inside = 0, padded = 0;
  for (int kh = 0; kh < kH; ++kh) {
    const int ih = ih0 + kh * dilH;
    const bool rowPadded = ih >= -padH && ih < inH + padEndH;
    for (int kw = 0; kw < kW; ++kw) {
      const int iw = iw0 + kw * dilW;
      if (rowPadded && iw >= -padW && iw < inW + padEndW) ++padded;
      if (ih < 0 || ih >= inH || iw < 0 || iw >= inW) continue;
      ++inside;
      const float4 v = LOAD4(src, c4 * inW + iw, n * inH + ih, inWidth);
#ifdef POOL_MAX
      acc = fmax(acc, v);
#else
      acc += v;
#endif
    }
  }
#ifdef POOL_AVG
#ifdef COUNT_INCLUDE_PAD
  const int count = padded;
#else
  const int count = inside;
#endif
  acc = count > 0 ? acc / (float)count : (float4)(0.f);
#endif
  STORE4(dst, x, y, outWidth, acc);
}

// Global pooling over H*W, one work-item per (c4, n). global: (C4, N)
__kernel void global_pool(NC4_IN(src), NC4_OUT(dst), int C4, int N, int inH, int inW) {
  const int c4 = get_global_id(0), n = get_global_id(1);
  if (c4 >= C4 || n >= N) return;
  const int inWidth = C4 * inW;
#ifdef POOL_MAX
  float4 acc = (float4)(-INFINITY);
#else
  float4 acc = (float4)(0.f);
#endif
  for (int h = 0; h < inH; ++h)
    for (int w = 0; w < inW; ++w) {
      const float4 v = LOAD4(src, c4 * inW + w, n * inH + h, inWidth);
#ifdef POOL_MAX
      acc = fmax(acc, v);
#else
      acc += v;
#endif
    }
#ifdef POOL_AVG
  acc /= (float)(inH * inW);
#endif
  STORE4(dst, c4, n, C4, acc);
}
