// variants: ; precision: fp32 fp16
// Transposed convolution over up to 3 spatial dims: y position = x position * stride - pad
// + k * dilation. One output element per invocation; weights [C, M/group, kernel...].
// P: 0 count, 1 C, 2 M, 3 group, 4 hasBias, 5..7 unused,
//    8..10 in DHW, 11..13 out DHW, 14..16 kernel, 17..19 stride, 20..22 dilation, 23..25 pad
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_IN(1, w);
TENSOR_IN(2, bias);
TENSOR_OUT(3, y);

// The input index along one axis that output o reaches through tap k, or -1.
int source(int o, int k, int stride, int dil, int pad, int extent) {
  int t = o + pad - k * dil;
  if (t < 0 || t % stride != 0) return -1;
  t /= stride;
  return t < extent ? t : -1;
}

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int C = pint(1), M = pint(2), G = pint(3);
  int D = pint(8), H = pint(9), W = pint(10), OD = pint(11), OH = pint(12), OW = pint(13);
  int KD = pint(14), KH = pint(15), KW = pint(16);
  int ox = int(i % uint(OW)), oy = int((i / uint(OW)) % uint(OH)), oz = int((i / uint(OW * OH)) % uint(OD));
  int m = int((i / uint(OW * OH * OD)) % uint(M)), n = int(i / uint(OW * OH * OD * M));
  int Cg = C / G, Mg = M / G, g = m / Mg, mm = m % Mg;
  float acc = pint(4) != 0 ? LD(bias[m]) : 0.0;
  for (int kz = 0; kz < KD; ++kz) {
    int iz = source(oz, kz, pint(17), pint(20), pint(23), D);
    if (iz < 0) continue;
    for (int ky = 0; ky < KH; ++ky) {
      int iy = source(oy, ky, pint(18), pint(21), pint(24), H);
      if (iy < 0) continue;
      for (int kx = 0; kx < KW; ++kx) {
        int ix = source(ox, kx, pint(19), pint(22), pint(25), W);
        if (ix < 0) continue;
        for (int ic = 0; ic < Cg; ++ic) {
          int c = g * Cg + ic;
          acc += LD(x[((n * C + c) * D + iz) * H * W + iy * W + ix]) * LD(w[((c * Mg + mm) * KD + kz) * KH * KW + ky * KW + kx]);
        }
      }
    }
  }
  y[i] = ST(acc);
}
