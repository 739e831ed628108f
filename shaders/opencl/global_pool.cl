// GlobalMaxPool / GlobalAveragePool (-DPOOL_MAX or -DPOOL_AVG) on NC4HW4 tensors of rank 3 to
// 5: one work-group of WG_SIZE items per (batch, channel block), striding over the plane (the
// pixels n * H + h, c4 * W + w of nc4Geometry: rank 5 has D rows of H * W) and meeting in a
// float4 tree (workgroup.h). One item walking the whole plane would leave a GPU idle (issue
// 15: 5.6 ms for 160x160 on an H100). global: (N * C4 * WG_SIZE)
// Where those groups are too few for a GPU (PP-OCRv4 det's 24 channels at 160x160: 6 groups
// walking 25 600 pixels), global_pool_partial gives each of S parts of a plane a work-group
// (its result into `part`, float4 per group) and global_pool_merge merges each output's S
// parts in order, one work-item an output.
#include "common.h"
#include "workgroup.h"

#ifdef POOL_MAX
#define POOL_OP WG_MAX
#define POOL_START (float4)(-INFINITY)
#else
#define POOL_OP WG_SUM
#define POOL_START (float4)(0.f)
#endif

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
__kernel void global_pool(NC4_IN(src), NC4_OUT(dst), int C4, int inH, int inW) {
  __local float4 scratch[WG_SIZE];
  const int g = get_group_id(0), c4 = g % C4, n = g / C4;
  const int plane = inH * inW, inWidth = C4 * inW;
  float4 acc = POOL_START;
  for (int q = get_local_id(0); q < plane; q += WG_SIZE) {
    const int h = q / inW, w = q - h * inW;
    acc = wg_merge4(POOL_OP, acc, LOAD4(src, c4 * inW + w, n * inH + h, inWidth));
  }
  acc = group_reduce4(POOL_OP, acc, scratch);
  if (get_local_id(0) != 0) return;
#ifdef POOL_AVG
  acc = plane > 0 ? acc / (float)plane : (float4)(0.f);
#endif
  STORE4(dst, c4, n, C4, acc);
}

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
__kernel void global_pool_partial(NC4_IN(src), __global float4* part, int C4, int inH, int inW, int S) {
  __local float4 scratch[WG_SIZE];
  const int g = get_group_id(0), s = g % S, c4 = (g / S) % C4, n = g / (S * C4);
  const int plane = inH * inW, inWidth = C4 * inW, per = (plane + S - 1) / S, end = min(plane, (s + 1) * per);
  float4 acc = POOL_START;
  for (int q = s * per + get_local_id(0); q < end; q += WG_SIZE) {
    const int h = q / inW, w = q - h * inW;
    acc = wg_merge4(POOL_OP, acc, LOAD4(src, c4 * inW + w, n * inH + h, inWidth));
  }
  acc = group_reduce4(POOL_OP, acc, scratch);
  if (get_local_id(0) == 0) part[g] = acc;
}

// global: (N * C4), one work-item per output.
__kernel void global_pool_merge(__global const float4* part, NC4_OUT(dst), int C4, int outputs, int S, int plane) {
  const int i = get_global_id(0);
  if (i >= outputs) return;
  float4 acc = POOL_START;
  for (int s = 0; s < S; ++s) acc = wg_merge4(POOL_OP, acc, part[i * S + s]);
#ifdef POOL_AVG
  acc = plane > 0 ? acc / (float)plane : (float4)(0.f);
#endif
  STORE4(dst, i % C4, i / C4, C4, acc);
}
