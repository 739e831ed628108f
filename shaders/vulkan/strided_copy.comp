// variants: ; precision: fp32 fp16
// y[outOffset + sum c_d * outStride_d] = x[inOffset + sum (c_d % mod_d) * inStride_d] over
// an index space of rank <= 6: transpose, slice (negative strides too), expand (stride 0),
// tile (mod), and the pieces of concat / split.
// P: 0 count, 1 rank, 2..7 dims, 8..13 in strides, 14..19 out strides, 20..25 mods,
//    26 inOffset, 27 outOffset
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  uint rem = i;
  int src = pint(26), dst = pint(27);
  for (int d = pint(1) - 1; d >= 0; --d) {
    uint dim = P[2 + d];
    int c = int(rem % dim);
    rem /= dim;
    src += (c % pint(20 + d)) * pint(8 + d);
    dst += c * pint(14 + d);
  }
  y[dst] = x[src];
}
