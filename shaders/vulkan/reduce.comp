// variants: ; precision: fp32 fp16
// Reduce* over any set of axes (rank <= 6): one output per invocation, fp32 accumulation.
// P: 0 count, 1 rank, 2..7 in dims, 8 reduced-axes mask, 9 kind (ReduceKind), 10 reduced
//    element count
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int rank = pint(1), mask = pint(8), kind = pint(9), R = pint(10);
  int strides[6];
  int s = 1;
  for (int d = rank - 1; d >= 0; --d) { strides[d] = s; s *= pint(2 + d); }
  uint rem = i;
  int base = 0;
  for (int d = rank - 1; d >= 0; --d) {
    if ((mask & (1 << d)) != 0) continue;
    uint dim = P[2 + d];
    base += int(rem % dim) * strides[d];
    rem /= dim;
  }
  float acc = (kind == 2) ? -1.0 / 0.0 : (kind == 3) ? 1.0 / 0.0 : (kind == 4) ? 1.0 : 0.0;
  float mx = -1.0 / 0.0;
  if (kind == 8) {  // log-sum-exp: the maximum first
    for (int r = 0; r < R; ++r) {
      int off = base, q = r;
      for (int d = rank - 1; d >= 0; --d) {
        if ((mask & (1 << d)) == 0) continue;
        off += (q % pint(2 + d)) * strides[d];
        q /= pint(2 + d);
      }
      mx = max(mx, LD(x[off]));
    }
  }
  for (int r = 0; r < R; ++r) {
    int off = base, q = r;
    for (int d = rank - 1; d >= 0; --d) {
      if ((mask & (1 << d)) == 0) continue;
      off += (q % pint(2 + d)) * strides[d];
      q /= pint(2 + d);
    }
    float v = LD(x[off]);
    switch (kind) {
      case 2: acc = max(acc, v); break;
      case 3: acc = min(acc, v); break;
      case 4: acc *= v; break;
      case 5: acc += abs(v); break;
      case 6: case 7: acc += v * v; break;
      case 8: acc += exp(v - mx); break;
      default: acc += v; break;
    }
  }
  if (kind == 1) acc /= float(R);
  else if (kind == 6) acc = sqrt(acc);
  else if (kind == 8) acc = (R == 0) ? -1.0 / 0.0 : mx + log(acc);
  else if (kind == 9) acc = log(acc);
  y[i] = ST(acc);
}
