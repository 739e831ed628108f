// variants: GEMM, DEPTHWISE, GENERIC, GEMM_IMAGE, DEPTHWISE_IMAGE, GENERIC_IMAGE, GEMM_SPLIT, GEMM_SPLIT_IMAGE, GEMM4, GEMM4_IMAGE ; precision: fp32 fp16
// Direct convolution over up to 3 spatial dims (1-D and 2-D use leading extents of 1),
// grouped, depthwise, dilated, strided, padded, with an optional bias, an optional Z of y's
// shape added before the fused activation (ops/Conv.hpp: y = act(conv + bias + Z)),
// on NC4HW4 tensors (x and y; *_IMAGE builds: storage images, else NCHW buffers with
// 4-channel loads, see NC4_IN). Each invocation computes 4 output channels (one c4 block)
// at PX consecutive output columns (8 for GEMM, 4 otherwise: on lavapipe each load is a
// per-lane gather, and 8 columns halve the weight loads per multiply-add; measured 10-15%
// faster on the PaddleOCR models; GEMM4 is GEMM with 4 columns, for a GPU that 8 would
// leave short of invocations), so each input load feeds 16 multiply-adds:
//   GEMM (group 1, or C/group and M/group multiples of 4): input blocks of 4 channels
//        times 4x4 weight blocks (conv_weights.comp GEMM);
//   DEPTHWISE (C/group = M/group = 1): one vec4 of weights per tap;
//   GENERIC (other groupings): each output lane gathers its group's channels one by one.
// GEMM_SPLIT: the GEMM kernel for convs with few output tiles and a long reduction
// (core/src/SplitReduction.hpp): P[29] = `lanes` invocations of one work-group share a tile of
// 4 channels by 4 columns, each summing every lanes-th (input block, tap) pair; a tree in
// work-group memory merges their sums. P[0] counts tiles, not invocations.
// P: 0 count, 1 C, 2 M, 3 group, 4 hasBias, 5 act, 6 actA, 7 actB,
//    8..10 in DHW, 11..13 out DHW, 14..16 kernel, 17..19 stride, 20..22 dilation, 23..25 pad,
//    26 scale, 27 shift (after the activation), 28 hasZ, 29 lanes (GEMM_SPLIT)
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(GEMM_SPLIT) || defined(GEMM_SPLIT_IMAGE)
#define SPLIT
#endif
#if defined(GEMM_IMAGE) || defined(DEPTHWISE_IMAGE) || defined(GENERIC_IMAGE) || defined(GEMM_SPLIT_IMAGE) || \
    defined(GEMM4_IMAGE)
#define IMAGE
#endif
#if defined(GEMM) || defined(GEMM_IMAGE) || defined(GEMM4) || defined(GEMM4_IMAGE) || defined(SPLIT)
#define KIND_GEMM
#elif defined(DEPTHWISE) || defined(DEPTHWISE_IMAGE)
#define KIND_DEPTHWISE
#endif
#include "common.glsl"
NC4_IN(0, x);
// Weights and bias in fp32 in both builds (ConvWeights.hpp): fp16 weights alone move
// PaddleOCR's detector map by 0.15.
#if defined(KIND_GEMM) || defined(KIND_DEPTHWISE)
F32X4_IN(1, w);
#else
F32_IN(1, w);
#endif
F32_IN(2, bias);
NC4_OUT(3, y);
NC4_IN(4, z);  // bound to x when there is no Z
#if defined(GEMM) || defined(GEMM_IMAGE)
#define PX 8
#else
#define PX 4
#endif

#ifdef KIND_GEMM
// One tap of one 4-channel input block into the PX columns from ox0: 4x4 weights from
// w[wIndex], an input vec4 per column.
void gemmTap(inout vec4 acc[PX], int wIndex, ivec3 gx, int n, int c4, int row, int ox0, int kx, int SW, int PW,
             int DW, int W) {
  vec4 w0 = LD4(w[wIndex]), w1 = LD4(w[wIndex + 1]), w2 = LD4(w[wIndex + 2]), w3 = LD4(w[wIndex + 3]);
  for (int p = 0; p < PX; ++p) {
    int ix = (ox0 + p) * SW - PW + kx * DW;
    if (ix < 0 || ix >= W) continue;
    vec4 xv = load_x(gx, n, c4, row, ix);
    acc[p] += w0 * xv.x + w1 * xv.y + w2 * xv.z + w3 * xv.w;
  }
}
#endif

// y = act(sum + Z) * scale + shift at column ox (< OW) of channel block m4.
void storeOutput(ivec3 gy, int n, int m4, int row, int ox, vec4 sum) {
  if (pint(28) != 0) sum += load_z(gy, n, m4, row, ox);
  store_y(gy, n, m4, row, ox, activate4(pint(5), sum, pfloat(6), pfloat(7)) * pfloat(26) + pfloat(27));
}

// Tile `index` of the output (P[0] of them): PX columns from ox0 of row oy at depth oz, for
// output channel block m4 of image n.
struct OutputTile {
  int ox0, oy, oz, m4, n;
};
OutputTile outputTile(uint index) {
  uint OWB = uint((pint(13) + PX - 1) / PX), OH = P[12], OD = P[11], M4 = uint((pint(2) + 3) / 4);
  OutputTile t;
  t.ox0 = int(index % OWB) * PX;
  uint rest = index / OWB;
  t.oy = int(rest % OH); rest /= OH;
  t.oz = int(rest % OD); rest /= OD;
  t.m4 = int(rest % M4);
  t.n = int(rest / M4);
  return t;
}

vec4 biasBlock(int m4, int M) {
  vec4 b4 = vec4(0.0);
  if (pint(4) != 0)
    for (int j = 0; j < 4; ++j)
      if (m4 * 4 + j < M) b4[j] = LD(bias[m4 * 4 + j]);
  return b4;
}

#ifdef SPLIT
shared vec4 splitSums[64][PX];

void main() {
  uint lanes = P[29], i = gid(), tile = i / lanes, lane = i % lanes, me = gl_LocalInvocationID.x;
  bool valid = tile < P[0];  // no early return: every invocation meets the barriers
  int C = pint(1), M = pint(2), G = pint(3);
  int D = pint(8), H = pint(9), W = pint(10), OD = pint(11), OH = pint(12), OW = pint(13);
  int KD = pint(14), KH = pint(15), KW = pint(16);
  int SD = pint(17), SH = pint(18), SW = pint(19), DD = pint(20), DH = pint(21), DW = pint(22);
  int PD = pint(23), PH = pint(24), PW = pint(25);
  OutputTile t = outputTile(valid ? tile : 0u);
  int ox0 = t.ox0, oy = t.oy, oz = t.oz, m4 = t.m4, n = t.n;
  ivec3 gx = ivec3(C, D * H, W), gy = ivec3(M, OD * OH, OW);
  int Cg = C / G, Mg = M / G, K = KD * KH * KW;
  int Cg4 = (Cg + 3) / 4, cBase4 = ((m4 * 4) / Mg) * Cg / 4;
  vec4 acc[PX];
  for (int p = 0; p < PX; ++p) acc[p] = vec4(0.0);
  if (valid) {
    for (int r = int(lane); r < Cg4 * K; r += int(lanes)) {  // (input block, tap) pairs
      int c4 = r / K, k = r - c4 * K;
      int kx = k % KW, ky = (k / KW) % KH, kz = k / (KW * KH);
      int iz = oz * SD - PD + kz * DD, iy = oy * SH - PH + ky * DH;
      if (iz < 0 || iz >= D || iy < 0 || iy >= H) continue;
      gemmTap(acc, (m4 * Cg4 + c4) * K * 4 + k * 4, gx, n, cBase4 + c4, iz * H + iy, ox0, kx, SW, PW, DW, W);
    }
  }
  for (int p = 0; p < PX; ++p) splitSums[me][p] = acc[p];
  barrier();
  for (uint s = lanes / 2u; s > 0u; s >>= 1) {
    if (lane < s)
      for (int p = 0; p < PX; ++p) splitSums[me][p] += splitSums[me + s][p];
    barrier();
  }
  if (!valid) return;
  vec4 b4 = biasBlock(m4, M);
  for (uint p = lane; p < uint(PX); p += lanes)
    if (ox0 + int(p) < OW) storeOutput(gy, n, m4, oz * OH + oy, ox0 + int(p), splitSums[me - lane][p] + b4);
}

#else
void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int C = pint(1), M = pint(2), G = pint(3);
  int D = pint(8), H = pint(9), W = pint(10), OD = pint(11), OH = pint(12), OW = pint(13);
  int KD = pint(14), KH = pint(15), KW = pint(16);
  int SD = pint(17), SH = pint(18), SW = pint(19), DD = pint(20), DH = pint(21), DW = pint(22);
  int PD = pint(23), PH = pint(24), PW = pint(25);
  OutputTile t = outputTile(i);
  int ox0 = t.ox0, oy = t.oy, oz = t.oz, m4 = t.m4, n = t.n;
  ivec3 gx = ivec3(C, D * H, W), gy = ivec3(M, OD * OH, OW);
  int Cg = C / G, Mg = M / G, K = KD * KH * KW;
  vec4 b4 = biasBlock(m4, M);
  vec4 acc[PX];
  for (int p = 0; p < PX; ++p) acc[p] = b4;
#if defined(KIND_GEMM)
  int Cg4 = (Cg + 3) / 4, g = (m4 * 4) / Mg, cBase4 = g * Cg / 4;
  for (int c4 = 0; c4 < Cg4; ++c4) {
    int wBase = (m4 * Cg4 + c4) * K * 4;
#elif defined(KIND_DEPTHWISE)
  {
    int c4 = m4, cBase4 = 0, wBase = m4 * K;
#else
  {
#endif
    for (int kz = 0; kz < KD; ++kz) {
      int iz = oz * SD - PD + kz * DD;
      if (iz < 0 || iz >= D) continue;
      for (int ky = 0; ky < KH; ++ky) {
        int iy = oy * SH - PH + ky * DH;
        if (iy < 0 || iy >= H) continue;
        int row = iz * H + iy;
        for (int kx = 0; kx < KW; ++kx) {
          int k = (kz * KH + ky) * KW + kx;
#if defined(KIND_GEMM)
          gemmTap(acc, wBase + k * 4, gx, n, cBase4 + c4, row, ox0, kx, SW, PW, DW, W);
#elif defined(KIND_DEPTHWISE)
          vec4 wv = LD4(w[wBase + k]);
          for (int p = 0; p < PX; ++p) {
            int ix = (ox0 + p) * SW - PW + kx * DW;
            if (ix >= 0 && ix < W) acc[p] += wv * load_x(gx, n, c4, row, ix);
          }
#else
          for (int j = 0; j < 4; ++j) {
            int m = m4 * 4 + j;
            if (m >= M) break;
            int g = m / Mg;
            for (int ic = 0; ic < Cg; ++ic) {
              int c = g * Cg + ic;
              float wv = LD(w[(m * Cg + ic) * K + k]);
              for (int p = 0; p < PX; ++p) {
                int ix = (ox0 + p) * SW - PW + kx * DW;
                if (ix >= 0 && ix < W) acc[p][j] += wv * load_x(gx, n, c / 4, row, ix)[c % 4];
              }
            }
          }
#endif
        }
      }
    }
  }
  for (int p = 0; p < PX; ++p)
    if (ox0 + p < OW) storeOutput(gy, n, m4, oz * OH + oy, ox0 + p, acc[p]);
}
#endif
