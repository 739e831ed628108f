// variants: PLAIN, IMAGE ; precision: fp32 fp16
// Separable Resize (nearest / linear / cubic, any coordinate mode) from per-axis tap tables
// built on the host by resizeAxisTaps (ops/Resize.hpp): per axis and output index, 10
// floats: count (-1 outside), 4 input indices, 4 weights, unused.
// PLAIN: buffers, any rank <= 6, one element an invocation.
// P: 0 count, 1 rank (<= 6), 2..7 out dims, 8..13 in dims, 14..19 table offsets (floats),
//    20 extrapolation value, 21 hasZ
// IMAGE: NC4HW4 images resized along H and W only, one pixel (4 channels) an invocation.
// P: 0 pixels, 1 C, 2..3 in H W, 4..5 out H W, 6..7 table offsets of H and W, 20 extrapolation,
//    21 hasZ
// With hasZ, binding 3 is the sum Z (ops/Resize.hpp, the output's shape and storage), added to
// every value; without, the op binds a placeholder there.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#ifdef IMAGE
NC4_IN(0, x);
F32_IN(1, taps);
NC4_OUT(2, y);
NC4_IN(3, z);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  ivec3 gx = ivec3(pint(1), pint(2), pint(3)), gy = ivec3(pint(1), pint(4), pint(5));
  ivec4 p = pixelOf(i, gy);
  int eh = pint(6) + p.z * 10, ew = pint(7) + p.w * 10;
  int nh = int(taps[eh]), nw = int(taps[ew]);
  vec4 plus = pint(21) != 0 ? load_z(gy, p.x, p.y, p.z, p.w) : vec4(0.0);
  if (nh < 0 || nw < 0) { store_y(gy, p.x, p.y, p.z, p.w, vec4(pfloat(20)) + plus); return; }
  vec4 acc = plus;
  for (int a = 0; a < nh; ++a) {
    int iy = int(taps[eh + 1 + a]);
    float wy = taps[eh + 5 + a];
    for (int b = 0; b < nw; ++b)
      acc += (wy * taps[ew + 5 + b]) * load_x(gx, p.x, p.y, iy, int(taps[ew + 1 + b]));
  }
  store_y(gy, p.x, p.y, p.z, p.w, acc);
}
#else
TENSOR_IN(0, x);
F32_IN(1, taps);
TENSOR_OUT(2, y);
TENSOR_IN(3, z);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int rank = pint(1);
  int entry[6];
  int counts[6];
  uint rem = i;
  int total = 1;
  float plus = pint(21) != 0 ? LD(z[i]) : 0.0;
  for (int d = rank - 1; d >= 0; --d) {
    uint dim = P[2 + d];
    int o = int(rem % dim);
    rem /= dim;
    entry[d] = pint(14 + d) + o * 10;
    counts[d] = int(taps[entry[d]]);
    if (counts[d] < 0) { y[i] = ST(pfloat(20) + plus); return; }
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
  y[i] = ST(acc + plus);
}
#endif
