// variants: ; precision: fp32 fp16
// Det of x [count, M, M] -> y [count]: one invocation per matrix, LU with partial pivoting in
// its own fp32 copy in `a` (scratch made at resize), step for step as the CPU
// (backends/cpu/ops/Det.cpp): a zero pivot column gives 0, a row swap negates. The pivots'
// product is kept as mantissa * 2^exponent, so it over- or underflows only if the result
// does (the CPU multiplies in double). Cost: M^3 / 3 multiply-adds per matrix, serial per
// invocation: parallel only over matrices (the row updates of one step could be spread over
// a work-group, but ONNX's matrices are tiny; the creator caps M, see there).
// P: 0 count, 1 M
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
layout(std430, set = 0, binding = 1) buffer Buf1 { float a[]; };
TENSOR_OUT(2, y);

void main() {
  uint b = gid();
  if (b >= P[0]) return;
  int M = pint(1), base = int(b) * M * M;
  for (int i = 0; i < M * M; ++i) a[base + i] = LD(x[base + i]);
  float mantissa = 1.0;
  int exponent = 0;
  for (int k = 0; k < M; ++k) {
    int pivot = k;
    for (int i = k + 1; i < M; ++i)
      if (abs(a[base + i * M + k]) > abs(a[base + pivot * M + k])) pivot = i;
    float d = a[base + pivot * M + k];
    if (d == 0.0) {  // singular: a zero column below the diagonal
      mantissa = 0.0;
      break;
    }
    if (pivot != k) {  // columns left of k are no longer read
      for (int j = k; j < M; ++j) {
        float t = a[base + k * M + j];
        a[base + k * M + j] = a[base + pivot * M + j];
        a[base + pivot * M + j] = t;
      }
      mantissa = -mantissa;
    }
    int e;
    mantissa = frexp(mantissa * d, e);
    exponent += e;
    for (int i = k + 1; i < M; ++i) {
      float f = a[base + i * M + k] / d;
      for (int j = k + 1; j < M; ++j) a[base + i * M + j] -= f * a[base + k * M + j];
    }
  }
  y[b] = ST(ldexp(mantissa, exponent));
}
