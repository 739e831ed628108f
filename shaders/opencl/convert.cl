// Layout conversions on the device: plain NCHW float buffers <-> NC4HW4 (image or buffer).
// Padding channels (C..4*ceil(C/4)) are written as zeros, which kernels rely on.
#include "common.h"

// global: (width, height) of dst's pixel grid
__kernel void nchw_to_nc4hw4(__global const float* src, NC4_OUT(dst), int C, int H, int W,
                             int width, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int c4 = x / W, w = x - c4 * W, n = y / H, h = y - n * H;
  const int c = c4 * 4;
  const size_t plane = (size_t)H * W;
  const size_t base = ((size_t)n * C + c) * plane + (size_t)h * W + w;
  float4 v;
  v.x = c < C ? src[base] : 0.f;
  v.y = c + 1 < C ? src[base + plane] : 0.f;
  v.z = c + 2 < C ? src[base + 2 * plane] : 0.f;
  v.w = c + 3 < C ? src[base + 3 * plane] : 0.f;
  STORE4(dst, x, y, width, v);
}

// global: (width, height) of src's pixel grid
__kernel void nc4hw4_to_nchw(NC4_IN(src), __global float* dst, int C, int H, int W, int width,
                             int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int c4 = x / W, w = x - c4 * W, n = y / H, h = y - n * H;
  const int c = c4 * 4;
  const size_t plane = (size_t)H * W;
  const size_t base = ((size_t)n * C + c) * plane + (size_t)h * W + w;
  const float4 v = LOAD4(src, x, y, width);
  dst[base] = v.x;
  if (c + 1 < C) dst[base + plane] = v.y;
  if (c + 2 < C) dst[base + 2 * plane] = v.z;
  if (c + 3 < C) dst[base + 3 * plane] = v.w;
}
