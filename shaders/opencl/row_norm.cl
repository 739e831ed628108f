// LayerNormalization and InstanceNormalization on plain f32 buffers: rows of `len` contiguous
// elements, each normalised by its own mean and variance (fp32, two passes as on the CPU), then
// y = (x - mean) * inv * scale + bias with inv = 1 / sqrt(variance + epsilon). Element i of row
// r takes scale[(r % C) * steps.x + i * steps.y] and bias[(r % C) * steps.z + i * steps.w]:
// InstanceNorm has C channels and steps (1, 0, 1, 0), LayerNorm C = 1 and steps (0, 1, 0, 1),
// or 0 for a single value. writeStats: bit 0 meanOut[r], bit 1 invOut[r].
// Without -DGROUP one work-item per row (short rows); with -DGROUP (and WG_SIZE) one
// work-group per row, its items striding over it and the sums met in trees (workgroup.h).
// global: (rows), or (rows * WG_SIZE) with GROUP
#ifdef GROUP
#include "workgroup.h"
#define ROW_NORM_SHAPE __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
#define ROW_TOTAL(v) group_sum(v, scratch)
#else
#define ROW_NORM_SHAPE
#define ROW_TOTAL(v) (v)
#endif

ROW_NORM_SHAPE
__kernel void row_norm(__global const float* x, __global const float* scale, __global const float* bias,
                       __global float* y, __global float* meanOut, __global float* invOut, int rows, int len,
                       int C, int4 steps, int hasBias, int writeStats, float epsilon) {
#ifdef GROUP
  __local float scratch[WG_SIZE];
  const int r = get_group_id(0), first = get_local_id(0), step = WG_SIZE;
#else
  const int r = get_global_id(0), first = 0, step = 1;
  if (r >= rows) return;
#endif
  __global const float* src = x + (size_t)r * len;
  __global float* dst = y + (size_t)r * len;
  float sum = 0.f;
  for (int i = first; i < len; i += step) sum += src[i];
  const float mean = ROW_TOTAL(sum) / (float)len;
  float sq = 0.f;
  for (int i = first; i < len; i += step) sq += (src[i] - mean) * (src[i] - mean);
  const float inv = rsqrt(ROW_TOTAL(sq) / (float)len + epsilon);
  const int c = r % C;
  __global const float* s = scale + c * steps.x;
  __global const float* b = bias + c * steps.z;
  for (int i = first; i < len; i += step) dst[i] = (src[i] - mean) * inv * s[i * steps.y] + (hasBias ? b[i * steps.w] : 0.f);
  if (first != 0) return;
  if (writeStats & 1) meanOut[r] = mean;
  if (writeStats & 2) invOut[r] = inv;
}
