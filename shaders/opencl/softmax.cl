// Softmax / LogSoftmax (-DLOG_SOFTMAX) on plain f32 buffers seen as [outer, n, inner],
// normalising over n, in fp32 with the line's maximum subtracted. Without -DGROUP one
// work-item per line (short lines); with -DGROUP (and WG_SIZE) one work-group per line (a
// vocabulary, a whole image), its items striding over it and meeting the maximum and the sum
// in trees (workgroup.h), where one item would walk it three times over while a GPU idles.
// global: (inner, outer), or (outer * inner * WG_SIZE) with GROUP
#ifdef GROUP
#include "workgroup.h"
#define SOFTMAX_SHAPE __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
#else
#define SOFTMAX_SHAPE
#endif

SOFTMAX_SHAPE
__kernel void softmax(__global const float* src, __global float* dst, int outer, int n, int inner) {
#ifdef GROUP
  __local float scratch[WG_SIZE];
  const int line = get_group_id(0), i = line % inner, o = line / inner;
  const int first = get_local_id(0), step = WG_SIZE;
#else
  const int i = get_global_id(0), o = get_global_id(1), first = 0, step = 1;
  if (i >= inner || o >= outer) return;
#endif
  const size_t base = (size_t)o * n * inner + i;
  float peak = -INFINITY;
  for (int k = first; k < n; k += step) peak = fmax(peak, src[base + (size_t)k * inner]);
#ifdef GROUP
  peak = group_max(peak, scratch);
#endif
  float sum = 0.f;
  for (int k = first; k < n; k += step) sum += exp(src[base + (size_t)k * inner] - peak);
#ifdef GROUP
  sum = group_sum(sum, scratch);
#endif
#ifdef LOG_SOFTMAX
  const float logSum = log(sum);
  for (int k = first; k < n; k += step) dst[base + (size_t)k * inner] = src[base + (size_t)k * inner] - peak - logSum;
#else
  const float inv = 1.f / sum;
  for (int k = first; k < n; k += step) dst[base + (size_t)k * inner] = exp(src[base + (size_t)k * inner] - peak) * inv;
#endif
}
