// variants: ; precision: fp32 fp16
// Clip with bounds read from one-element tensors computed at run time.
// P: 0 count, 1 hasMin, 2 hasMax
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_IN(1, lo);
TENSOR_IN(2, hi);
TENSOR_OUT(3, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  float v = LD(x[i]);
  if (pint(1) != 0) v = max(v, LD(lo[0]));
  if (pint(2) != 0) v = min(v, LD(hi[0]));
  y[i] = ST(v);
}
