// variants: ; precision: fp32 fp16
// Hardmax over the middle axis of [outer, n, inner] (ops/Softmax.hpp's split): one line per
// invocation, 1 at its first maximum and 0 elsewhere. As on the CPU (numpy's argmax), a NaN
// counts as the maximum: the first NaN wins. P: 0 lines (outer*inner), 1 n, 2 inner
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int n = pint(1), inner = pint(2);
  int base = int(i / uint(inner)) * n * inner + int(i % uint(inner));
  int best = 0;
  float top = LD(x[base]);
  for (int k = 1; k < n && !isnan(top); ++k) {
    float v = LD(x[base + k * inner]);
    if (v > top || isnan(v)) {
      top = v;
      best = k;
    }
  }
  for (int k = 0; k < n; ++k) y[base + k * inner] = ST(k == best ? 1.0 : 0.0);
}
