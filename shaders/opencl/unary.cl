// Elementwise unary ops and activations, matching ops/Unary.cpp's applyUnary. The op is
// chosen with -DOP_<NAME>; ALPHA/BETA/GAMMA come as kernel arguments.
#include "common.h"

inline float unary_op(float x, float alpha, float beta, float gamma) {
#if defined(OP_ABS)
  return fabs(x);
#elif defined(OP_NEG)
  return -x;
#elif defined(OP_RECIPROCAL)
  return 1.f / x;
#elif defined(OP_FLOOR)
  return floor(x);
#elif defined(OP_CEIL)
  return ceil(x);
#elif defined(OP_ROUND)
  return rint(x);
#elif defined(OP_SQRT)
  return sqrt(x);
#elif defined(OP_EXP)
  return exp(x);
#elif defined(OP_LOG)
  return log(x);
#elif defined(OP_SIN)
  return sin(x);
#elif defined(OP_COS)
  return cos(x);
#elif defined(OP_TAN)
  return tan(x);
#elif defined(OP_ERF)
  return erf(x);
#elif defined(OP_SIGN)
  return x > 0.f ? 1.f : (x < 0.f ? -1.f : 0.f);
#elif defined(OP_TANH)
  return tanh(x);
#elif defined(OP_SIGMOID)
  return x >= 0.f ? 1.f / (1.f + exp(-x)) : exp(x) / (1.f + exp(x));
#elif defined(OP_RELU)
  return x > 0.f ? x : 0.f;
#elif defined(OP_LEAKY_RELU)
  return x >= 0.f ? x : alpha * x;
#elif defined(OP_ELU)
  return x >= 0.f ? x : alpha * (exp(x) - 1.f);
#elif defined(OP_SELU)
  return gamma * (x > 0.f ? x : alpha * (exp(x) - 1.f));
#elif defined(OP_CELU)
  return fmax(0.f, x) + fmin(0.f, alpha * (exp(x / alpha) - 1.f));
#elif defined(OP_SOFTPLUS)
  return x > 0.f ? x + log1p(exp(-x)) : log1p(exp(x));
#elif defined(OP_SOFTSIGN)
  return x / (1.f + fabs(x));
#elif defined(OP_THRESHOLDED_RELU)
  return x > alpha ? x : 0.f;
#elif defined(OP_HARD_SIGMOID)
  return fmax(0.f, fmin(1.f, alpha * x + beta));
#elif defined(OP_HARD_SWISH)
  return x * fmax(0.f, fmin(1.f, x / 6.f + 0.5f));
#elif defined(OP_ACOS)
  return acos(x);
#elif defined(OP_ASIN)
  return asin(x);
#elif defined(OP_ATAN)
  return atan(x);
#elif defined(OP_ACOSH)
  return acosh(x);
#elif defined(OP_ASINH)
  return asinh(x);
#elif defined(OP_ATANH)
  return atanh(x);
#elif defined(OP_COSH)
  return cosh(x);
#elif defined(OP_SINH)
  return sinh(x);
#elif defined(OP_SHRINK)
  return x < -alpha ? x + beta : (x > alpha ? x - beta : 0.f);
#elif defined(OP_SCALE)
  return x * alpha;
#elif defined(OP_CLIP)
  return fmin(fmax(x, alpha), beta);
#else
  return x;
#endif
}

// NC4HW4: global (width, height); padding lanes stay zero.
__kernel void unary_nc4(NC4_IN(src), NC4_OUT(dst), int C, int W, int width, int height,
                        float alpha, float beta, float gamma) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const float4 v = LOAD4(src, x, y, width);
  float4 r;
  r.x = unary_op(v.x, alpha, beta, gamma);
  r.y = unary_op(v.y, alpha, beta, gamma);
  r.z = unary_op(v.z, alpha, beta, gamma);
  r.w = unary_op(v.w, alpha, beta, gamma);
  const int c = (x / W) * 4;
  if (c + 4 > C) {
    r.y = c + 1 < C ? r.y : 0.f;
    r.z = c + 2 < C ? r.z : 0.f;
    r.w = c + 3 < C ? r.w : 0.f;
  }
  STORE4(dst, x, y, width, r);
}

// Plain buffers: global (count).
__kernel void unary_plain(__global const float* src, __global float* dst, int count, float alpha,
                          float beta, float gamma) {
  const int i = get_global_id(0);
  if (i >= count) return;
  dst[i] = unary_op(src[i], alpha, beta, gamma);
}

// Clip with bounds read from the device (Clip-11+ bounds computed in the graph): lo/hi are
// one-element buffers, used when hasLo/hasHi.
inline float clip_bounds(float v, __global const float* lo, __global const float* hi, int hasLo, int hasHi) {
  if (hasLo) v = fmax(v, lo[0]);
  if (hasHi) v = fmin(v, hi[0]);
  return v;
}

__kernel void clip_nc4(NC4_IN(src), NC4_OUT(dst), __global const float* lo, __global const float* hi,
                       int hasLo, int hasHi, int C, int W, int width, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const float4 v = LOAD4(src, x, y, width);
  float4 r = (float4)(clip_bounds(v.x, lo, hi, hasLo, hasHi), clip_bounds(v.y, lo, hi, hasLo, hasHi),
                      clip_bounds(v.z, lo, hi, hasLo, hasHi), clip_bounds(v.w, lo, hi, hasLo, hasHi));
  const int c = (x / W) * 4;
  if (c + 4 > C) {
    r.y = c + 1 < C ? r.y : 0.f;
    r.z = c + 2 < C ? r.z : 0.f;
    r.w = c + 3 < C ? r.w : 0.f;
  }
  STORE4(dst, x, y, width, r);
}

__kernel void clip_plain(__global const float* src, __global float* dst, __global const float* lo,
                         __global const float* hi, int hasLo, int hasHi, int count) {
  const int i = get_global_id(0);
  if (i >= count) return;
  dst[i] = clip_bounds(src[i], lo, hi, hasLo, hasHi);
}
