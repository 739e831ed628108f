// Hardmax on plain f32 buffers seen as [outer, n, inner] (ops/Softmax.hpp's split): 1 at a
// line's first maximum and 0 elsewhere. As on the CPU (numpy's argmax), a NaN counts as the
// maximum: the first NaN wins. Without -DGROUP one line per work-item; with -DGROUP (and
// WG_SIZE) one line per work-group, its items striding over it, their candidates met in
// workgroup.h's arg tree. global: (inner, outer), or (outer * inner * WG_SIZE) with GROUP
#ifdef GROUP
#include "workgroup.h"
#define HARDMAX_SHAPE __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
#else
#define HARDMAX_SHAPE
#endif

HARDMAX_SHAPE
__kernel void hardmax(__global const float* src, __global float* dst, int outer, int n, int inner) {
#ifdef GROUP
  __local float values[WG_SIZE];
  __local int indices[WG_SIZE];
  const int line = get_group_id(0), i = line % inner, o = line / inner;
  const int first = get_local_id(0), step = WG_SIZE;
#else
  const int i = get_global_id(0), o = get_global_id(1), first = 0, step = 1;
  if (i >= inner || o >= outer) return;
#endif
  const size_t base = (size_t)o * n * inner + i;
  int best = first < n ? first : -1;  // this item's first maximum (-1: no element)
  float top = first < n ? src[base + (size_t)first * inner] : -INFINITY;
  for (int k = first + step; k < n && !isnan(top); k += step) {
    const float v = src[base + (size_t)k * inner];
    if (v > top || isnan(v)) {
      top = v;
      best = k;
    }
  }
#ifdef GROUP
  best = group_arg(WG_MAX, false, top, best, values, indices);
#endif
  for (int k = first; k < n; k += step) dst[base + (size_t)k * inner] = k == best ? 1.f : 0.f;
}
