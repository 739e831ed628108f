// MaxPool / AveragePool on NC4HW4 tensors, 1-D and 2-D (`pool`) and 3-D (`pool3d`); the
// global forms are in global_pool.cl.
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

// 3-D windows on rank-5 NC4HW4 tensors, whose pixel grid is (C4 * H * W) x (N * D) (see
// nc4Geometry). The same rules as `pool` with a depth loop. Arguments per axis are (D, H, W)
// int4s (.w unused): extents in and out, kernel, stride, pad begin, dilation, pad end.
// global: (C4 * outH * outW, N * outD)
__kernel void pool3d(NC4_IN(src), NC4_OUT(dst), int C4, int4 in, int4 out, int4 k, int4 stride, int4 pad,
                     int4 dil, int4 padEnd, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  const int outPlane = out.y * out.z, inPlane = in.y * in.z;
  const int outWidth = C4 * outPlane;
  if (x >= outWidth || y >= height) return;
  const int c4 = x / outPlane, r = x - c4 * outPlane, oh = r / out.z, ow = r - oh * out.z;
  const int n = y / out.x, od = y - n * out.x;
  const int inWidth = C4 * inPlane;
  const int4 i0 = (int4)(od, oh, ow, 0) * stride - pad;
#ifdef POOL_MAX
  float4 acc = (float4)(-INFINITY);
#else
  float4 acc = (float4)(0.f);
#endif
  int inside = 0, padded = 0;
  for (int kd = 0; kd < k.x; ++kd) {
    const int id = i0.x + kd * dil.x;
    const bool planePadded = id >= -pad.x && id < in.x + padEnd.x;
    for (int kh = 0; kh < k.y; ++kh) {
      const int ih = i0.y + kh * dil.y;
      const bool rowPadded = planePadded && ih >= -pad.y && ih < in.y + padEnd.y;
      for (int kw = 0; kw < k.z; ++kw) {
        const int iw = i0.z + kw * dil.z;
        if (rowPadded && iw >= -pad.z && iw < in.z + padEnd.z) ++padded;
        if (id < 0 || id >= in.x || ih < 0 || ih >= in.y || iw < 0 || iw >= in.z) continue;
        ++inside;
        const float4 v = LOAD4(src, c4 * inPlane + ih * in.z + iw, n * in.x + id, inWidth);
#ifdef POOL_MAX
        acc = fmax(acc, v);
#else
        acc += v;
#endif
      }
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
