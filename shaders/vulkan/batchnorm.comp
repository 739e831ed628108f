// variants: FOLDED, FULL ; precision: fp32 fp16
// Inference BatchNormalization per channel: y = x * k[c] + b[c]. FOLDED reads k and b from
// an fp32 table computed on the host from constant parameters (variances can exceed the
// fp16 range); FULL computes them from the four parameter tensors.
// P: 0 count, 1 C, 2 spatial, 3 epsilon
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
#ifdef FOLDED
F32_IN(1, table);
TENSOR_OUT(2, y);
#else
TENSOR_IN(1, scale);
TENSOR_IN(2, bias);
TENSOR_IN(3, mean);
TENSOR_IN(4, variance);
TENSOR_OUT(5, y);
#endif

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int c = int((i / P[2]) % P[1]);
#ifdef FOLDED
  y[i] = ST(LD(x[i]) * table[2 * c] + table[2 * c + 1]);
#else
  float k = LD(scale[c]) / sqrt(LD(variance[c]) + pfloat(3));
  y[i] = ST((LD(x[i]) - LD(mean[c])) * k + LD(bias[c]));
#endif
}
