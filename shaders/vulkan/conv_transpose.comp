// variants: GEMM, GENERIC, GEMM_IMAGE, GENERIC_IMAGE ; precision: fp32 fp16
// Transposed convolution over up to 3 spatial dims (y position = x position * stride - pad
// + k * dilation) on NC4HW4 tensors (*_IMAGE: storage images, else NCHW buffers, see
// NC4_IN), one output pixel of 4 channels an invocation, gathering the input pixels that
// reach it:
//   GEMM (group 1, or C/group and M/group multiples of 4): input blocks of 4 channels
//        times 4x4 weight blocks (conv_weights.comp TRANSPOSED);
//   GENERIC: each output lane gathers its group's channels one by one from the weights
//        [C][M/group][kernel].
// P: 0 count, 1 C, 2 M, 3 group, 4 hasBias, 5 act, 6 actA, 7 actB,
//    8..10 in DHW, 11..13 out DHW, 14..16 kernel, 17..19 stride, 20..22 dilation, 23..25 pad,
//    26 scale, 27 shift (after the activation)
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(GEMM_IMAGE) || defined(GENERIC_IMAGE)
#define IMAGE
#endif
#if defined(GEMM) || defined(GEMM_IMAGE)
#define KIND_GEMM
#endif
#include "common.glsl"
NC4_IN(0, x);
// Weights and bias in fp32 in both builds, as conv.comp's.
#ifdef KIND_GEMM
F32X4_IN(1, w);
#else
F32_IN(1, w);
#endif
F32_IN(2, bias);
NC4_OUT(3, y);

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
  int KD = pint(14), KH = pint(15), KW = pint(16), K = KD * KH * KW;
  int M4 = (M + 3) / 4;
  int ox = int(i % uint(OW)), r = int(i / uint(OW));
  int oy = r % OH; r /= OH;
  int oz = r % OD; r /= OD;
  int m4 = r % M4, n = r / M4;
  ivec3 gx = ivec3(C, D * H, W), gy = ivec3(M, OD * OH, OW);
  int Cg = C / G, Mg = M / G;
  vec4 acc = vec4(0.0);
  if (pint(4) != 0)
    for (int j = 0; j < 4; ++j)
      if (m4 * 4 + j < M) acc[j] = LD(bias[m4 * 4 + j]);
#ifdef KIND_GEMM
  int Cg4 = (Cg + 3) / 4, cBase4 = ((m4 * 4) / Mg) * Cg / 4;
#endif
  for (int kz = 0; kz < KD; ++kz) {
    int iz = source(oz, kz, pint(17), pint(20), pint(23), D);
    if (iz < 0) continue;
    for (int ky = 0; ky < KH; ++ky) {
      int iy = source(oy, ky, pint(18), pint(21), pint(24), H);
      if (iy < 0) continue;
      for (int kx = 0; kx < KW; ++kx) {
        int ix = source(ox, kx, pint(19), pint(22), pint(25), W);
        if (ix < 0) continue;
        int k = (kz * KH + ky) * KW + kx, row = iz * H + iy;
#ifdef KIND_GEMM
        for (int c4 = 0; c4 < Cg4; ++c4) {
          int wb = ((m4 * Cg4 + c4) * K + k) * 4;
          vec4 xv = load_x(gx, n, cBase4 + c4, row, ix);
          acc += LD4(w[wb]) * xv.x + LD4(w[wb + 1]) * xv.y + LD4(w[wb + 2]) * xv.z + LD4(w[wb + 3]) * xv.w;
        }
#else
        for (int j = 0; j < 4; ++j) {
          int m = m4 * 4 + j;
          if (m >= M) break;
          int g = m / Mg;
          for (int ic = 0; ic < Cg; ++ic) {
            int c = g * Cg + ic;
            acc[j] += load_x(gx, n, c / 4, row, ix)[c % 4] * LD(w[(c * Mg + m % Mg) * K + k]);
          }
        }
#endif
      }
    }
  }
  store_y(gy, n, m4, oz * OH + oy, ox, activate4(pint(5), acc, pfloat(6), pfloat(7)) * pfloat(26) + pfloat(27));
}
