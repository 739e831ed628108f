// ArgMax / ArgMin on a plain f32 buffer seen as [outer, n, inner] around the axis
// (ops/ArgMinMax.hpp): the int64 index of each line's extreme. -DARG_OP=WG_MAX|WG_MIN; ties go
// to the first index, or the last with -DLAST=1 (select_last_index), and, as in the CPU's
// sequential scan, a NaN is never chosen unless it is the line's first element (which no
// comparison replaces). Without -DGROUP one line per work-item; with -DGROUP (and WG_SIZE)
// one line per work-group, its items striding over it, their candidates met in workgroup.h's
// arg tree. global: (inner, outer), or (outer * inner * WG_SIZE) with GROUP
#ifdef GROUP
#define ARG_SHAPE __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
#else
#define ARG_SHAPE
#define WG_SIZE 1  // only wg_arg_beats is used: no tree
#endif
#include "workgroup.h"

ARG_SHAPE
__kernel void arg_min_max(__global const float* src, __global long* dst, int outer, int n, int inner) {
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
  float top = 0.f;
  int best = -1;  // this item's candidate (-1: none yet)
  for (int k = first; k < n; k += step) {
    const float v = src[base + (size_t)k * inner];
    if (!isnan(v) && wg_arg_beats(ARG_OP, LAST, v, k, top, best)) {
      top = v;
      best = k;
    }
  }
#ifdef GROUP
  best = group_arg(ARG_OP, LAST, top, best, values, indices);
  if (first != 0) return;
#endif
  if (best < 0 || isnan(src[base])) best = 0;  // a NaN first stays, as in the CPU's scan
  dst[(size_t)o * inner + i] = best;
}
