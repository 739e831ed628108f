// variants: ; precision: fp32 fp16
// Softmax / LogSoftmax over the middle axis of [outer, n, inner]; one row per invocation,
// accumulated in fp32 with the row maximum subtracted. P: 0 count (outer*inner), 1 n,
// 2 inner, 3 log
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
  float mx = -1.0 / 0.0;
  for (int k = 0; k < n; ++k) mx = max(mx, LD(x[base + k * inner]));
  float sum = 0.0;
  for (int k = 0; k < n; ++k) sum += exp(LD(x[base + k * inner]) - mx);
  bool lg = pint(3) != 0;
  float ls = log(sum);
  for (int k = 0; k < n; ++k) {
    float v = LD(x[base + k * inner]) - mx;
    y[base + k * inner] = ST(lg ? v - ls : exp(v) / sum);
  }
}
