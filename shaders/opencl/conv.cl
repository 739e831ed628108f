// 2-D convolution on NC4HW4 tensors (1-D as H = 1). One work-item computes one output pixel
// of 4 output channels. Weights are packed by the host:
//   conv2d:      [outC4][inC4][kH][kW] x 4 float4 (one float4 of 4 output lanes per input lane);
//                grouped convs are packed dense with zeros across groups;
//   depthwise:   [C4][kH][kW] float4.
// bias: [outC4] float4. Padding channels have zero weights and bias. Each output is
// activate4(acc + Z) * actScale + actShift: Z (src1, y's shape, read only with -DHAS_Z; see
// ops/Conv.hpp), then the fused activation and the scalar affine after it.
#include "common.h"

#ifdef HAS_Z
#define CONV_OUT(acc, x, y, width) (activate4((acc) + LOAD4(src1, x, y, width)) * actScale + actShift)
#else
#define CONV_OUT(acc, x, y, width) (activate4(acc) * actScale + actShift)
#endif

// Each work-item computes 4 neighbouring output columns (ow0..ow0+3) of 4 output channels,
// so each packed weight read serves 4 pixels. global: (outC4 * ceil(outW/4), N * outH)
__kernel void conv2d(NC4_IN(src), __global const float4* restrict weight,
                     __global const float4* restrict bias, NC4_OUT(dst), NC4_IN(src1), int inC4, int inH,
                     int inW, int outC4, int outH, int outW, int kH, int kW, int strideH,
                     int strideW, int padH, int padW, int dilH, int dilW, int height,
                     float actScale, float actShift) {
  const int x = get_global_id(0), y = get_global_id(1);
  const int blocks = (outW + 3) / 4;
  if (x >= outC4 * blocks || y >= height) return;
  const int oc4 = x / blocks, ow0 = (x - oc4 * blocks) * 4;
  const int n = y / outH, oh = y - n * outH;
  const float4 b = bias[oc4];
  float4 acc0 = b, acc1 = b, acc2 = b, acc3 = b;
  const int inWidth = inC4 * inW;
  const int ih0 = oh * strideH - padH;
  const int iw0 = ow0 * strideW - padW;
  for (int ic4 = 0; ic4 < inC4; ++ic4) {
    __global const float4* w = weight + (size_t)(oc4 * inC4 + ic4) * kH * kW * 4;
    for (int kh = 0; kh < kH; ++kh) {
      const int ih = ih0 + kh * dilH;
      if (ih < 0 || ih >= inH) { w += kW * 4; continue; }
      const int row = n * inH + ih;
      for (int kw = 0; kw < kW; ++kw, w += 4) {
        const float4 w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
        const int iwk = iw0 + kw * dilW;
#define CONV_TAP(J, ACC)                                                        \
        {                                                                       \
          const int iw = iwk + (J) * strideW;                                   \
          if (iw >= 0 && iw < inW) {                                            \
            const float4 v = LOAD4(src, ic4 * inW + iw, row, inWidth);          \
            ACC = mad((float4)(v.x), w0, ACC);                                  \
            ACC = mad((float4)(v.y), w1, ACC);                                  \
            ACC = mad((float4)(v.z), w2, ACC);                                  \
            ACC = mad((float4)(v.w), w3, ACC);                                  \
          }                                                                     \
        }
        CONV_TAP(0, acc0)
        CONV_TAP(1, acc1)
        CONV_TAP(2, acc2)
        CONV_TAP(3, acc3)
#undef CONV_TAP
      }
    }
  }
  const int outWidth = outC4 * outW;
  const int base = oc4 * outW + ow0;
  STORE4(dst, base, y, outWidth, CONV_OUT(acc0, base, y, outWidth));
  if (ow0 + 1 < outW) STORE4(dst, base + 1, y, outWidth, CONV_OUT(acc1, base + 1, y, outWidth));
  if (ow0 + 2 < outW) STORE4(dst, base + 2, y, outWidth, CONV_OUT(acc2, base + 2, y, outWidth));
  if (ow0 + 3 < outW) STORE4(dst, base + 3, y, outWidth, CONV_OUT(acc3, base + 3, y, outWidth));
}

// conv2d for convs with few output tiles and a long reduction (core/src/SplitReduction.hpp):
// `lanes` work-items of one work-group share a tile (4 output channels by 4 columns), each
// summing every lanes-th (input block, tap) pair; a tree in local memory merges their sums.
// global: ceil(tiles * lanes / 64) * 64, 1-D; local: 64.
__kernel void conv2d_split(NC4_IN(src), __global const float4* restrict weight,
                           __global const float4* restrict bias, NC4_OUT(dst), NC4_IN(src1), int inC4, int inH,
                           int inW, int outC4, int outH, int outW, int kH, int kW, int strideH, int strideW,
                           int padH, int padW, int dilH, int dilW, int tiles, int lanes, float actScale,
                           float actShift) {
  __local float4 sums[64 * 4];
  const int me = get_local_id(0), i = get_global_id(0);
  const int tile = i / lanes, lane = i - tile * lanes;
  const bool valid = tile < tiles;  // no early return: every work-item meets the barriers
  const int blocks = (outW + 3) / 4;
  const int ow0 = (tile % blocks) * 4, rest = tile / blocks;
  const int oh = rest % outH, oc4 = (rest / outH) % outC4, n = rest / outH / outC4;
  const int y = n * outH + oh, taps = kH * kW, inWidth = inC4 * inW;
  const int ih0 = oh * strideH - padH, iw0 = ow0 * strideW - padW;
  float4 acc[4] = {(float4)(0.f), (float4)(0.f), (float4)(0.f), (float4)(0.f)};
  for (int r = valid ? lane : inC4 * taps; r < inC4 * taps; r += lanes) {  // (input block, tap) pairs
    const int ic4 = r / taps, t = r - ic4 * taps, kh = t / kW, kw = t - kh * kW;
    const int ih = ih0 + kh * dilH;
    if (ih < 0 || ih >= inH) continue;
    __global const float4* w = weight + ((size_t)(oc4 * inC4 + ic4) * taps + t) * 4;
    const float4 w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
    for (int j = 0; j < 4; ++j) {
      const int iw = iw0 + kw * dilW + j * strideW;
      if (iw < 0 || iw >= inW) continue;
      const float4 v = LOAD4(src, ic4 * inW + iw, n * inH + ih, inWidth);
      acc[j] = mad((float4)(v.x), w0, mad((float4)(v.y), w1, mad((float4)(v.z), w2, mad((float4)(v.w), w3, acc[j]))));
    }
  }
  for (int j = 0; j < 4; ++j) sums[me * 4 + j] = acc[j];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = lanes / 2; s > 0; s >>= 1) {
    if (lane < s)
      for (int j = 0; j < 4; ++j) sums[me * 4 + j] += sums[(me + s) * 4 + j];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (!valid) return;
  const int outWidth = outC4 * outW;
  for (int j = lane; j < 4; j += lanes) {
    if (ow0 + j >= outW) break;
    const int x = oc4 * outW + ow0 + j;
    STORE4(dst, x, y, outWidth, CONV_OUT(sums[(me - lane) * 4 + j] + bias[oc4], x, y, outWidth));
  }
}

// global: (C4 * outW, N * outH)
__kernel void depthwise(NC4_IN(src), __global const float4* restrict weight,
                        __global const float4* restrict bias, NC4_OUT(dst), NC4_IN(src1), int C4, int inH,
                        int inW, int outH, int outW, int kH, int kW, int strideH, int strideW,
                        int padH, int padW, int dilH, int dilW, int height, float actScale,
                        float actShift) {
  const int x = get_global_id(0), y = get_global_id(1);
  const int outWidth = C4 * outW;
  if (x >= outWidth || y >= height) return;
  const int c4 = x / outW, ow = x - c4 * outW;
  const int n = y / outH, oh = y - n * outH;
  float4 acc = bias[c4];
  const int inWidth = C4 * inW;
  const int ih0 = oh * strideH - padH, iw0 = ow * strideW - padW;
  __global const float4* w = weight + (size_t)c4 * kH * kW;
  for (int kh = 0; kh < kH; ++kh) {
    const int ih = ih0 + kh * dilH;
    if (ih < 0 || ih >= inH) continue;
    for (int kw = 0; kw < kW; ++kw) {
      const int iw = iw0 + kw * dilW;
      if (iw < 0 || iw >= inW) continue;
      acc = mad(LOAD4(src, c4 * inW + iw, n * inH + ih, inWidth), w[kh * kW + kw], acc);
    }
  }
  STORE4(dst, x, y, outWidth, CONV_OUT(acc, x, y, outWidth));
}

// ConvTranspose: y[oh] gathers x[ih] where oh = ih * stride - pad + kh * dil.
// Weights packed like conv2d ([outC4][inC4][kH][kW] x 4 float4).
__kernel void conv_transpose(NC4_IN(src), __global const float4* restrict weight,
                             __global const float4* restrict bias, NC4_OUT(dst), int inC4,
                             int inH, int inW, int outC4, int outH, int outW, int kH, int kW,
                             int strideH, int strideW, int padH, int padW, int dilH, int dilW, int height,
                             float actScale, float actShift) {
  const int x = get_global_id(0), y = get_global_id(1);
  const int outWidth = outC4 * outW;
  if (x >= outWidth || y >= height) return;
  const int oc4 = x / outW, ow = x - oc4 * outW;
  const int n = y / outH, oh = y - n * outH;
  float4 acc = bias[oc4];
  const int inWidth = inC4 * inW;
  for (int ic4 = 0; ic4 < inC4; ++ic4) {
    __global const float4* w = weight + (size_t)(oc4 * inC4 + ic4) * kH * kW * 4;
    for (int kh = 0; kh < kH; ++kh) {
      const int th = oh + padH - kh * dilH;
      if (th < 0 || th % strideH != 0) continue;
      const int ih = th / strideH;
      if (ih >= inH) continue;
      for (int kw = 0; kw < kW; ++kw) {
        const int tw = ow + padW - kw * dilW;
        if (tw < 0 || tw % strideW != 0) continue;
        const int iw = tw / strideW;
        if (iw >= inW) continue;
        __global const float4* wk = w + (kh * kW + kw) * 4;
        const float4 v = LOAD4(src, ic4 * inW + iw, n * inH + ih, inWidth);
        acc = mad((float4)(v.x), wk[0], acc);
        acc = mad((float4)(v.y), wk[1], acc);
        acc = mad((float4)(v.z), wk[2], acc);
        acc = mad((float4)(v.w), wk[3], acc);
      }
    }
  }
  STORE4(dst, x, y, outWidth, activate4(acc) * actScale + actShift);
}

// Weights computed in the graph are packed on the device each run, in the layouts above.
// Dense conv2d / conv_transpose packing, one work-item per packed float. W is
// [M, C/group, taps] for Conv, [C, M/group, taps] for ConvTranspose (-DTRANSPOSED).
// global: (outC4 * inC4 * taps * 16)
__kernel void pack_dense(__global const float* w, __global float* packed, int M, int C, int group,
                         int taps, int inC4, int outC4) {
  const int p = get_global_id(0);
  if (p >= outC4 * inC4 * taps * 16) return;
  const int ol = p & 3, il = (p >> 2) & 3;
  int rest = p >> 4;
  const int t = rest % taps;
  rest /= taps;
  const int ic4 = rest % inC4, oc4 = rest / inC4;
  const int oc = oc4 * 4 + ol, ic = ic4 * 4 + il;
  float v = 0.f;
  if (oc < M && ic < C) {
    const int cg = C / group, mg = M / group;
    if (oc / mg == ic / cg) {
#ifdef TRANSPOSED
      v = w[((size_t)ic * mg + (oc - (oc / mg) * mg)) * taps + t];
#else
      v = w[((size_t)oc * cg + (ic - (ic / cg) * cg)) * taps + t];
#endif
    }
  }
  packed[p] = v;
}

// Depthwise packing: [C4][taps] float4. global: (C4 * taps * 4)
__kernel void pack_depthwise(__global const float* w, __global float* packed, int C, int taps, int C4) {
  const int p = get_global_id(0);
  if (p >= C4 * taps * 4) return;
  const int l = p & 3, t = (p >> 2) % taps, c4 = (p >> 2) / taps;
  const int c = c4 * 4 + l;
  packed[p] = c < C ? w[(size_t)c * taps + t] : 0.f;
}

// Bias padded to whole float4s (zeros past M, or everywhere without a bias). global: (M4 * 4)
__kernel void pack_bias(__global const float* bias, __global float* packed, int M, int count, int hasBias) {
  const int i = get_global_id(0);
  if (i >= count) return;
  packed[i] = hasBias && i < M ? bias[i] : 0.f;
}
