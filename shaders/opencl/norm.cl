// BatchNormalization and LRN; the row normalisations (Layer, Instance) are in row_norm.cl.
#include "common.h"

// y = x * a[c] + b[c] per channel on NC4HW4 (BatchNormalization with its statistics folded
// into a and b on the host). a, b: [C4] float4, zero in padding lanes. global: (width, height)
__kernel void channel_affine(NC4_IN(src), __global const float4* a, __global const float4* b,
                             NC4_OUT(dst), int W, int width, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int c4 = x / W;
  STORE4(dst, x, y, width, mad(LOAD4(src, x, y, width), a[c4], b[c4]));
}

// BatchNormalization with statistics computed in the graph (plain [C] buffers), on NC4HW4.
inline float bn_lane(float v, int c, int C, __global const float* scale, __global const float* bias,
                     __global const float* mean, __global const float* var, float epsilon) {
  if (c >= C) return 0.f;
  return (v - mean[c]) * rsqrt(var[c] + epsilon) * scale[c] + bias[c];
}

__kernel void batch_norm(NC4_IN(src), __global const float* scale, __global const float* bias,
                         __global const float* mean, __global const float* var, NC4_OUT(dst),
                         int C, int W, int width, int height, float epsilon) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int c = (x / W) * 4;
  const float4 v = LOAD4(src, x, y, width);
  const float4 r = (float4)(bn_lane(v.x, c, C, scale, bias, mean, var, epsilon),
                            bn_lane(v.y, c + 1, C, scale, bias, mean, var, epsilon),
                            bn_lane(v.z, c + 2, C, scale, bias, mean, var, epsilon),
                            bn_lane(v.w, c + 3, C, scale, bias, mean, var, epsilon));
  STORE4(dst, x, y, width, r);
}

// LRN across channels on plain f32 NCHW: y = x / (bias + alpha/size * sum x^2)^beta over
// channels [c - (size-1)/2, c + ceil((size-1)/2)]. global: (H*W, C, N)
__kernel void lrn(__global const float* x, __global float* y, int C, int plane, int size,
                  float alpha, float beta, float bias, int N) {
  const int i = get_global_id(0), c = get_global_id(1), n = get_global_id(2);
  if (i >= plane || c >= C || n >= N) return;
  const int lo = max(0, c - (size - 1) / 2), hi = min(C - 1, c + size / 2);
  __global const float* base = x + (size_t)n * C * plane + i;
  float sum = 0.f;
  for (int k = lo; k <= hi; ++k) {
    const float v = base[(size_t)k * plane];
    sum += v * v;
  }
  y[((size_t)n * C + c) * plane + i] = base[(size_t)c * plane] / pow(bias + alpha / (float)size * sum, beta);
}
