// variants: ; precision: fp32 fp16
// Elementwise binary ops with numpy broadcasting (rank <= 6; broadcast dims have stride 0).
// P: 0 count, 1 op (0 add 1 sub 2 mul 3 div 4 pow 5 max 6 min 7 prelu 8 add-then-scale),
//    2 rank, 3..8 out dims, 9..14 a strides, 15..20 b strides, 21 scale.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, a);
TENSOR_IN(1, b);
TENSOR_OUT(2, y);

float powOnnx(float x, float e) {
  if (e == 0.0) return 1.0;
  if (x == 0.0) return e > 0.0 ? 0.0 : 1.0 / 0.0;
  if (x < 0.0 && e == floor(e)) {
    float r = pow(-x, e);
    return mod(e, 2.0) == 1.0 ? -r : r;
  }
  return pow(x, e);
}

// Four consecutive elements per invocation (fewer, fuller workgroups); P[0] counts elements.
void main() {
  uint first = gid() * 4u;
  int rank = pint(2), op = pint(1);
  for (uint e = 0u; e < 4u; ++e) {
    uint i = first + e;
    if (i >= P[0]) return;
    uint rem = i;
    int ia = 0, ib = 0;
    if (rank == 1) {  // the common coalesced case: no division
      ia = int(i) * pint(9);
      ib = int(i) * pint(15);
    } else for (int d = rank - 1; d >= 0; --d) {
      uint dim = P[3 + d];
      int c = int(rem % dim);
      rem /= dim;
      ia += c * pint(9 + d);
      ib += c * pint(15 + d);
    }
    float u = LD(a[ia]), v = LD(b[ib]), r;
    switch (op) {
      case 0: r = u + v; break;
      case 1: r = u - v; break;
      case 2: r = u * v; break;
      case 3: r = u / v; break;
      case 4: r = powOnnx(u, v); break;
      case 5: r = (isnan(u) || isnan(v)) ? u + v : max(u, v); break;
      case 6: r = (isnan(u) || isnan(v)) ? u + v : min(u, v); break;
      case 7: r = u < 0.0 ? u * v : u; break;
      default: r = (u + v) * pfloat(21); break;
    }
    y[i] = ST(r);
  }
}
