// variants: ; precision: fp32 fp16
// Separable Resize (nearest / linear / cubic, any coordinate mode) from per-axis tap tables
// built on the host by resizeAxisTaps (ops/Resize.hpp): per axis and output index, 10
// floats: count (-1 outside), 4 input indices, 4 weights, unused.
// P: 0 count, 1 rank (<= 6), 2..7 out dims, 8..13 in dims, 14..19 table offsets (floats),
//    20 extrapolation value
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
F32_IN(1, taps);
TENSOR_OUT(2, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int rank = pint(1);
  int entry[6];
  int counts[6];
  uint rem = i;
  int total = 1;
  for (int d = rank - 1; d >= 0; --d) {
    uint dim = P[2 + d];
    int o = int(rem % dim);
    rem /= dim;
    entry[d] = pint(14 + d) + o * 10;
    counts[d] = int(taps[entry[d]]);
    if (counts[d] < 0) { y[i] = ST(pfloat(20)); return; }
    total *= counts[d];
  }
  float acc = 0.0;
  for (int t = 0; t < total; ++t) {
    int q = t, off = 0, stride = 1;
    float wgt = 1.0;
    for (int d = rank - 1; d >= 0; --d) {
      int k = q % counts[d];
      q /= counts[d];
      off += int(taps[entry[d] + 1 + k]) * stride;
      wgt *= taps[entry[d] + 5 + k];
      stride *= pint(8 + d);
    }
    acc += wgt * LD(x[off]);
  }
  y[i] = ST(acc);
}
