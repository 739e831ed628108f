// variants: DIRECT, TILED ; precision: fp32 fp16
// Direct convolution over up to 3 spatial dims (1-D and 2-D use leading extents of 1):
// grouped, depthwise, dilated, strided, padded, with an optional bias and fused activation.
// Each invocation computes 4 consecutive output columns of 1 output channel (DIRECT) or of
// 4 output channels of one group (TILED, when M/group is a multiple of 4, with weights
// packed by the host as vec4 over those 4 channels: [M/4][C/group][kernel]), so every
// input and weight load feeds several multiply-adds.
// P: 0 count, 1 C, 2 M, 3 group, 4 hasBias, 5 act, 6 actA, 7 actB,
//    8..10 in DHW, 11..13 out DHW, 14..16 kernel, 17..19 stride, 20..22 dilation, 23..25 pad
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
#ifdef TILED
TENSOR4_IN(1, w);
#else
TENSOR_IN(1, w);
#endif
TENSOR_IN(2, bias);
TENSOR_OUT(3, y);

#ifdef TILED
#define OC 4
#else
#define OC 1
#endif
#define PX 4

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int C = pint(1), M = pint(2), G = pint(3);
  int D = pint(8), H = pint(9), W = pint(10), OD = pint(11), OH = pint(12), OW = pint(13);
  int KD = pint(14), KH = pint(15), KW = pint(16);
  int SD = pint(17), SH = pint(18), SW = pint(19), DD = pint(20), DH = pint(21), DW = pint(22);
  int PD = pint(23), PH = pint(24), PW = pint(25);
  int OWB = (OW + PX - 1) / PX, MB = M / OC;
  int ox0 = int(i % uint(OWB)) * PX;
  uint rest = i / uint(OWB);
  int oy = int(rest % uint(OH)); rest /= uint(OH);
  int oz = int(rest % uint(OD)); rest /= uint(OD);
  int m0 = int(rest % uint(MB)) * OC;
  int n = int(rest / uint(MB));
  int Cg = C / G, Mg = M / G, g = m0 / Mg;
  int K = KD * KH * KW;
  float acc[OC][PX];
  for (int j = 0; j < OC; ++j) {
    float b = pint(4) != 0 ? LD(bias[m0 + j]) : 0.0;
    for (int p = 0; p < PX; ++p) acc[j][p] = b;
  }
  for (int ic = 0; ic < Cg; ++ic) {
    int xBase = (n * C + g * Cg + ic) * D * H * W;
  #ifdef TILED
    int wBase = ((m0 / 4) * Cg + ic) * K;
#else
    int wBase = (m0 * Cg + ic) * K;
#endif
    for (int kz = 0; kz < KD; ++kz) {
      int iz = oz * SD - PD + kz * DD;
      if (iz < 0 || iz >= D) continue;
      for (int ky = 0; ky < KH; ++ky) {
        int iy = oy * SH - PH + ky * DH;
        if (iy < 0 || iy >= H) continue;
        int row = xBase + (iz * H + iy) * W;
        for (int kx = 0; kx < KW; ++kx) {
          float xv[PX];
          for (int p = 0; p < PX; ++p) {
            int ix = (ox0 + p) * SW - PW + kx * DW;
            xv[p] = (ix >= 0 && ix < W) ? LD(x[row + ix]) : 0.0;
          }
          int k = (kz * KH + ky) * KW + kx;
#ifdef TILED
          vec4 wv = LD4(w[wBase + k]);
          for (int p = 0; p < PX; ++p) {
            acc[0][p] += xv[p] * wv.x;
            acc[1][p] += xv[p] * wv.y;
            acc[2][p] += xv[p] * wv.z;
            acc[3][p] += xv[p] * wv.w;
          }
#else
          float wv = LD(w[wBase + k]);
          for (int p = 0; p < PX; ++p) acc[0][p] += xv[p] * wv;
#endif
        }
      }
    }
  }
  int act = pint(5);
  float a = pfloat(6), b = pfloat(7);
  for (int j = 0; j < OC; ++j) {
    int o = (((n * M + m0 + j) * OD + oz) * OH + oy) * OW;
    for (int p = 0; p < PX; ++p)
      if (ox0 + p < OW) y[o + ox0 + p] = ST(activate(act, acc[j][p], a, b));
  }
}
