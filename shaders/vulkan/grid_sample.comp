// variants: ; precision: fp32 fp16
// GridSample on NCHW buffers, one invocation per output element; the rules are those of
// ops/GridSample.hpp, step for step as on the CPU (backends/cpu/ops/GridSample.cpp).
// P: 0 count, 1 C, 2 H, 3 W, 4 Ho, 5 Wo, 6 mode (0 bilinear, 1 nearest, 2 bicubic),
//    7 padding (0 zeros, 1 border, 2 reflection), 8 align_corners
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, src);
TENSOR_IN(1, grid);
TENSOR_OUT(2, dst);

float denormalize(float v, int len, bool align) {
  return align ? (v + 1.0) / 2.0 * float(len - 1) : ((v + 1.0) * float(len) - 1.0) / 2.0;
}

// Mirrors v at the nearer edge of [lo, hi] until it lies inside.
float reflectInto(float v, float lo, float hi) {
  float range = hi - lo;
  if (!(range > 0.0)) return lo;
  if (v >= lo && v <= hi) return v;
  float d = v < lo ? lo - v : v - hi;
  float flips = floor(d / range);
  float r = d - flips * range;
  bool even = mod(flips, 2.0) == 0.0;
  return v < lo ? (even ? lo + r : hi - r) : (even ? hi - r : lo + r);
}

// The pixel a tap at integer position i reads, or -1 for a zero (zeros padding).
int padIndex(int i, int len, float lo, float hi, int padding) {
  if (padding == 0) return i >= 0 && i < len ? i : -1;
  if (padding == 2) i = int(reflectInto(float(i), lo, hi));
  return clamp(i, 0, len - 1);
}

// Keys cubic weights (A = -0.75) of the taps at -1, 0, 1, 2 around fraction t.
vec4 cubicWeights(float t) {
  const float A = -0.75;
  vec4 d = vec4(t + 1.0, t, 1.0 - t, 2.0 - t);
  vec4 nearW = ((A + 2.0) * d - (A + 3.0)) * d * d + 1.0;
  vec4 farW = ((A * d - 5.0 * A) * d + 8.0 * A) * d - 4.0 * A;
  return vec4(farW.x, nearW.y, nearW.z, farW.w);
}

// Points farther out read only zeros or border values; clamping keeps the int conversions
// defined (NaN reads as far).
float tame(float v, int len) { return v >= -16.0 ? min(v, float(len + 16)) : -16.0; }

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int C = pint(1), H = pint(2), W = pint(3), Ho = pint(4), Wo = pint(5);
  int mode = pint(6), padding = pint(7);
  bool align = P[8] != 0u;
  int j = int(i % uint(Wo));
  uint rest = i / uint(Wo);
  int oh = int(rest % uint(Ho));
  rest /= uint(Ho);
  int c = int(rest % uint(C));
  int n = int(rest / uint(C));
  int g = ((n * Ho + oh) * Wo + j) * 2;
  float x = denormalize(LD(grid[g]), W, align), y = denormalize(LD(grid[g + 1]), H, align);
  if (mode == 1) {
    x = roundEven(x);
    y = roundEven(y);
  }
  float xlo = align ? 0.0 : -0.5, xhi = align ? float(W - 1) : float(W) - 0.5;
  float ylo = align ? 0.0 : -0.5, yhi = align ? float(H - 1) : float(H) - 0.5;
  if (padding == 2) {  // the same taps as mirroring each one
    x = reflectInto(x, xlo, xhi);
    y = reflectInto(y, ylo, yhi);
  }
  x = tame(x, W);
  y = tame(y, H);
  float fx = floor(x), fy = floor(y);
  int taps = mode == 2 ? 4 : mode == 0 ? 2 : 1;
  int x0 = int(fx), y0 = int(fy);
  vec4 wx = vec4(1.0, 0.0, 0.0, 0.0), wy = wx;
  if (mode == 0) {
    wx.xy = vec2(1.0 - (x - fx), x - fx);
    wy.xy = vec2(1.0 - (y - fy), y - fy);
  } else if (mode == 2) {
    wx = cubicWeights(x - fx);
    wy = cubicWeights(y - fy);
    x0 -= 1;
    y0 -= 1;
  }
  int base = (n * C + c) * H * W;
  float acc = 0.0;
  for (int a = 0; a < taps; ++a) {
    int row = padIndex(y0 + a, H, ylo, yhi, padding);
    if (row < 0) continue;
    float part = 0.0;
    for (int b = 0; b < taps; ++b) {
      int col = padIndex(x0 + b, W, xlo, xhi, padding);
      if (col >= 0) part += wx[b] * LD(src[base + row * W + col]);
    }
    acc += wy[a] * part;
  }
  dst[i] = ST(acc);
}
