// variants: ; precision: fp32 fp16
// DFT as a direct sum (ops/Dft.hpp): x [outer, n, inner, C] -> y [outer, bins, inner, 2], one
// output bin per invocation, y[k] = scale * sum_{j < used} x[j] * tw[(k * j) mod L], the
// twiddles tw (fp32, (re, im) pairs) computed on the host in double. The index (k * j) mod L
// is stepped by k, so it never overflows. Cost: `used` complex multiply-adds per bin.
// P: 0 outputs (outer*bins*inner), 1 bins, 2 inner, 3 n, 4 used = min(n, L), 5 L, 6 C,
// 7 scale (float bits: 1/L for the inverse, else 1)
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
F32_IN(1, tw);
TENSOR_OUT(2, y);

void main() {
  uint id = gid();
  if (id >= P[0]) return;
  int bins = pint(1), inner = pint(2), n = pint(3), used = pint(4), L = pint(5), C = pint(6);
  int i = int(id % uint(inner)), r = int(id / uint(inner));
  int k = r % bins, o = r / bins;
  int at = (o * n * inner + i) * C, stride = inner * C;
  float re = 0.0, im = 0.0;
  int m = 0;  // (k * j) mod L
  for (int j = 0; j < used; ++j, at += stride) {
    float c = tw[2 * m], s = tw[2 * m + 1];
    float a = LD(x[at]), b = C == 2 ? LD(x[at + 1]) : 0.0;
    re += a * c - b * s;
    im += a * s + b * c;
    m += k;
    if (m >= L) m -= L;
  }
  float scale = pfloat(7);
  y[2 * id] = ST(re * scale);
  y[2 * id + 1] = ST(im * scale);
}
