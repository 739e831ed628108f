// variants: ; precision: fp32 fp16
// LRN across channels: y = x / (bias + alpha / size * sum of x^2 over channels
// [c - floor((size-1)/2), c + ceil((size-1)/2)]) ^ beta.
// P: 0 count, 1 C, 2 spatial, 3 size, 4 alpha, 5 beta, 6 bias
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int C = pint(1), S = pint(2), size = pint(3);
  int s = int(i % uint(S)), c = int((i / uint(S)) % uint(C)), n = int(i / uint(S * C));
  int lo = max(0, c - (size - 1) / 2), hi = min(C - 1, c + size / 2);
  float sum = 0.0;
  for (int k = lo; k <= hi; ++k) { float v = LD(x[(n * C + k) * S + s]); sum += v * v; }
  y[i] = ST(LD(x[i]) / pow(pfloat(6) + pfloat(4) / float(size) * sum, pfloat(5)));
}
