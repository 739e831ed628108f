// GridSample on NCHW float buffers, one work item per output element; the rules are those of
// ops/GridSample.hpp, step for step as on the CPU (backends/cpu/ops/GridSample.cpp).
// mode: 0 bilinear, 1 nearest, 2 bicubic; padding: 0 zeros, 1 border, 2 reflection.

inline float gs_denormalize(float v, int len, int align) {
  return align ? (v + 1.f) / 2.f * (float)(len - 1) : ((v + 1.f) * (float)len - 1.f) / 2.f;
}

// Mirrors v at the nearer edge of [lo, hi] until it lies inside.
inline float gs_reflect(float v, float lo, float hi) {
  const float range = hi - lo;
  if (!(range > 0.f)) return lo;
  if (v >= lo && v <= hi) return v;
  const float d = v < lo ? lo - v : v - hi;
  const float flips = floor(d / range);
  const float r = d - flips * range;
  const bool even = fmod(flips, 2.f) == 0.f;
  return v < lo ? (even ? lo + r : hi - r) : (even ? hi - r : lo + r);
}

// The pixel a tap at integer position i reads, or -1 for a zero (zeros padding).
inline int gs_pad_index(int i, int len, float lo, float hi, int padding) {
  if (padding == 0) return i >= 0 && i < len ? i : -1;
  if (padding == 2) i = (int)gs_reflect((float)i, lo, hi);
  return clamp(i, 0, len - 1);
}

// Keys cubic weights (A = -0.75) of the taps at -1, 0, 1, 2 around fraction t.
inline float4 gs_cubic_weights(float t) {
  const float A = -0.75f;
  const float4 d = (float4)(t + 1.f, t, 1.f - t, 2.f - t);
  const float4 nearW = ((A + 2.f) * d - (A + 3.f)) * d * d + 1.f;
  const float4 farW = ((A * d - 5.f * A) * d + 8.f * A) * d - 4.f * A;
  return (float4)(farW.x, nearW.y, nearW.z, farW.w);
}

// Points farther out read only zeros or border values; clamping keeps the int conversions
// defined (NaN reads as far).
inline float gs_tame(float v, int len) { return v >= -16.f ? fmin(v, (float)(len + 16)) : -16.f; }

// global: (count)
__kernel void grid_sample(__global const float* src, __global const float* grid, __global float* dst, int count,
                          int C, int H, int W, int Ho, int Wo, int mode, int padding, int align) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const int j = i % Wo;
  int rest = i / Wo;
  const int oh = rest % Ho;
  rest /= Ho;
  const int c = rest % C, n = rest / C;
  const int g = ((n * Ho + oh) * Wo + j) * 2;
  float x = gs_denormalize(grid[g], W, align), y = gs_denormalize(grid[g + 1], H, align);
  if (mode == 1) {
    x = rint(x);  // half to even
    y = rint(y);
  }
  const float xlo = align ? 0.f : -0.5f, xhi = align ? (float)(W - 1) : (float)W - 0.5f;
  const float ylo = align ? 0.f : -0.5f, yhi = align ? (float)(H - 1) : (float)H - 0.5f;
  if (padding == 2) {  // the same taps as mirroring each one
    x = gs_reflect(x, xlo, xhi);
    y = gs_reflect(y, ylo, yhi);
  }
  x = gs_tame(x, W);
  y = gs_tame(y, H);
  const float fx = floor(x), fy = floor(y);
  const int taps = mode == 2 ? 4 : mode == 0 ? 2 : 1;
  int x0 = (int)fx, y0 = (int)fy;
  float wx[4] = {1.f, 0.f, 0.f, 0.f}, wy[4] = {1.f, 0.f, 0.f, 0.f};
  if (mode == 0) {
    wx[1] = x - fx, wx[0] = 1.f - wx[1];
    wy[1] = y - fy, wy[0] = 1.f - wy[1];
  } else if (mode == 2) {
    const float4 cx = gs_cubic_weights(x - fx), cy = gs_cubic_weights(y - fy);
    wx[0] = cx.x, wx[1] = cx.y, wx[2] = cx.z, wx[3] = cx.w;
    wy[0] = cy.x, wy[1] = cy.y, wy[2] = cy.z, wy[3] = cy.w;
    x0 -= 1;
    y0 -= 1;
  }
  __global const float* plane = src + (size_t)(n * C + c) * H * W;
  float acc = 0.f;
  for (int a = 0; a < taps; ++a) {
    const int row = gs_pad_index(y0 + a, H, ylo, yhi, padding);
    if (row < 0) continue;
    float part = 0.f;
    for (int b = 0; b < taps; ++b) {
      const int col = gs_pad_index(x0 + b, W, xlo, xhi, padding);
      if (col >= 0) part += wx[b] * plane[row * W + col];
    }
    acc += wy[a] * part;
  }
  dst[i] = acc;
}
