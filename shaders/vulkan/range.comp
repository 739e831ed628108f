// variants: ; precision: fp32 fp16
// Range: y[i] = start + i * delta. P: 0 count, 1 start, 2 delta
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_OUT(0, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  y[i] = ST(pfloat(1) + float(i) * pfloat(2));
}
