// variants: ; precision: fp32 fp16
// Pad with constant / reflect / edge modes (rank <= 6; negative pads crop).
// P: 0 count, 1 rank, 2..7 out dims, 8..13 in dims, 14..19 pad begins, 20 mode
//    (0 constant, 1 reflect, 2 edge), 21 value
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int rank = pint(1), mode = pint(20);
  uint rem = i;
  int src = 0, stride = 1;
  bool outside = false;
  for (int d = rank - 1; d >= 0; --d) {
    uint dim = P[2 + d];
    int o = int(rem % dim);
    rem /= dim;
    int n = pint(8 + d);
    int v = o - pint(14 + d);
    if (v < 0 || v >= n) {
      if (mode == 0) outside = true;
      else if (mode == 2) v = clamp(v, 0, n - 1);
      else if (n == 1) v = 0;
      else for (int k = 0; k < 64 && (v < 0 || v >= n); ++k) v = v < 0 ? -v : 2 * (n - 1) - v;
    }
    src += v * stride;
    stride *= n;
  }
  if (outside) y[i] = ST(pfloat(21));
  else y[i] = x[src];
}
