// SqueezeExcite (ops/SqueezeExcite.hpp) on NC4HW4: one work-group of WG_SIZE items per (batch,
// run of B channel blocks, tile of pixels). The group computes the hidden vector from the
// pooled one in local memory, then its channels' gates, then scales its blocks' pixels.
// Every group repeats the hidden vector (C * C1 multiply-adds): on a GPU, where the groups run
// side by side, cheaper than the two kernels it replaces (B = 1); on a CPU driver B is every
// block (SqueezeExciteParams::blocksPerGroup). w: W1 transposed [C][C1], B1 [C1], W2 [C][C1],
// B2 [C]. Activation codes and parameters as FusedActivation (ops/FusedActivation.hpp), the
// gate's scale and shift after its activation; C and C1 at most MAX_CHANNELS.
// Where the node has no `pooled` input: -DSELF (a small plane, SqueezeExciteParams::
// meansInKernel) has each group take X's channel means itself, one block a work-item, in
// place of a GlobalAveragePool kernel (its `pooled` argument is X again, unread); -DPARTS
// reads the sums global_pool_partial left in `part` ([N][C4][S] float4) and adds them.
// global: (groups * WG_SIZE)
#include "common.h"

#ifdef PARTS
#define POOLED_ARG __global const float4* part
#else
#define POOLED_ARG NC4_IN(pooled)
#endif

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
__kernel void squeeze_excite(NC4_IN(x), POOLED_ARG, __global const float* w, NC4_OUT(y), int C, int H, int W,
                             int C1, int tiles, int B, int hiddenCode, float hiddenA, float hiddenB, int gateCode,
                             float gateA, float gateB, float gateScale, float gateShift, int S) {
  __local float pooledS[MAX_CHANNELS];
  __local float hiddenS[MAX_CHANNELS];
  __local float gateS[MAX_CHANNELS];
  const int C4 = (C + 3) / 4, runs = (C4 + B - 1) / B, g = get_group_id(0), l = get_local_id(0);
  const int tile = g % tiles, run = (g / tiles) % runs, n = g / (tiles * runs);
  for (int q = l; q < C4; q += WG_SIZE) {
#if defined(SELF)
    float4 v = (float4)(0.f);
    for (int p = 0; p < H * W; ++p) {
      const int h = p / W;
      v += LOAD4(x, q * W + p - h * W, n * H + h, C4 * W);
    }
    v /= (float)(H * W);
#elif defined(PARTS)
    float4 v = (float4)(0.f);
    for (int t = 0; t < S; ++t) v += part[(n * C4 + q) * S + t];
    v /= (float)(H * W);
#else
    const float4 v = LOAD4(pooled, q, n, C4);
#endif
    for (int k = 0; k < 4 && q * 4 + k < C; ++k) pooledS[q * 4 + k] = lane4(v, k);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int b1 = C * C1, w2 = b1 + C1, b2 = w2 + C * C1;
  for (int j = l; j < C1; j += WG_SIZE) {
    float s = w[b1 + j];
    for (int c = 0; c < C; ++c) s = mad(w[c * C1 + j], pooledS[c], s);
    hiddenS[j] = activate_code4(hiddenCode, (float4)(s), hiddenA, hiddenB).x;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int first = run * B, blocks = min(B, C4 - first);
  for (int k = l; k < blocks * 4; k += WG_SIZE) {
    const int c = first * 4 + k;
    float s = 0.f;  // lanes past C
    if (c < C) {
      s = w[b2 + c];
      for (int j = 0; j < C1; ++j) s = mad(w[w2 + c * C1 + j], hiddenS[j], s);
      s = mad(activate_code4(gateCode, (float4)(s), gateA, gateB).x, gateScale, gateShift);
    }
    gateS[k] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int plane = H * W, per = (plane + tiles - 1) / tiles, begin = tile * per, len = min(plane, begin + per) - begin;
  const int width = C4 * W;
  for (int q = l; q < blocks * len; q += WG_SIZE) {
    const int b = q / len, p = begin + q % len, h = p / W, px = (first + b) * W + p - h * W, py = n * H + h;
    const float4 gate = vload4(b, gateS);
    STORE4(y, px, py, width, LOAD4(x, px, py, width) * gate);
  }
}
