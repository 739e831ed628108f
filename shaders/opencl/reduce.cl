// The Reduce* family on plain f32 buffers, accumulating in fp32. -DREDUCE_<KIND>.
// An output element sits at input offset base (from the kept dims); the reduced dims are
// walked with their own extents and strides (rank <= 8 each). Without -DGROUP one work-item
// per output walks all its reduced elements (few of them, many outputs); with -DGROUP (and
// WG_SIZE) a work-group per output strides over them and the partials meet in a tree
// (workgroup.h): a whole-axis or whole-image reduction spread over a GPU's threads.
// global: (outCount), or (outCount * WG_SIZE) with GROUP
#ifdef GROUP
#include "workgroup.h"
#define REDUCE_SHAPE __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
#else
#define REDUCE_SHAPE
#endif

#if defined(REDUCE_MAX)
#define REDUCE_MERGE WG_MAX
#define REDUCE_START (-INFINITY)
#elif defined(REDUCE_MIN)
#define REDUCE_MERGE WG_MIN
#define REDUCE_START INFINITY
#elif defined(REDUCE_PROD)
#define REDUCE_MERGE WG_PRODUCT
#define REDUCE_START 1.f
#else
#define REDUCE_MERGE WG_SUM  // every other kind sums a per-element term
#define REDUCE_START 0.f
#endif

inline long reduced_offset(int r, int nRed, const int* rd, const int* rs) {
  long off = 0;
  for (int k = nRed - 1; k >= 0; --k) {
    off += (long)(r % rd[k]) * rs[k];
    r /= rd[k];
  }
  return off;
}

// acc met with one element v (log-sum-exp: exp(v - peak) summed). NaN-keeping max/min as on
// the CPU.
inline float reduce_step(float acc, float v, float peak) {
#if defined(REDUCE_MAX)
  return (v > acc || isnan(v)) ? v : acc;
#elif defined(REDUCE_MIN)
  return (v < acc || isnan(v)) ? v : acc;
#elif defined(REDUCE_PROD)
  return acc * v;
#elif defined(REDUCE_L1)
  return acc + fabs(v);
#elif defined(REDUCE_L2) || defined(REDUCE_SUMSQUARE)
  return acc + v * v;
#elif defined(REDUCE_LOGSUMEXP)
  return acc + exp(v - peak);
#else
  return acc + v;
#endif
}

REDUCE_SHAPE
__kernel void reduce(__global const float* src, __global float* dst, int outCount, int nKept,
                     int8 keptDims, int8 keptStrides, int nRed, int8 redDims, int8 redStrides,
                     int redCount) {
#ifdef GROUP
  __local float scratch[WG_SIZE];
  const int o = get_group_id(0), first = get_local_id(0), step = WG_SIZE;
#else
  const int o = get_global_id(0), first = 0, step = 1;
  if (o >= outCount) return;
#endif
  const int kd[8] = {keptDims.s0, keptDims.s1, keptDims.s2, keptDims.s3, keptDims.s4, keptDims.s5, keptDims.s6, keptDims.s7};
  const int ks[8] = {keptStrides.s0, keptStrides.s1, keptStrides.s2, keptStrides.s3, keptStrides.s4, keptStrides.s5, keptStrides.s6, keptStrides.s7};
  const int rd[8] = {redDims.s0, redDims.s1, redDims.s2, redDims.s3, redDims.s4, redDims.s5, redDims.s6, redDims.s7};
  const int rs[8] = {redStrides.s0, redStrides.s1, redStrides.s2, redStrides.s3, redStrides.s4, redStrides.s5, redStrides.s6, redStrides.s7};
  int rest = o;
  long base = 0;
  for (int k = nKept - 1; k >= 0; --k) {
    base += (long)(rest % kd[k]) * ks[k];
    rest /= kd[k];
  }
  float peak = -INFINITY;
#if defined(REDUCE_LOGSUMEXP)  // the maximum first, subtracted before exp
  for (int r = first; r < redCount; r += step) peak = fmax(peak, src[base + reduced_offset(r, nRed, rd, rs)]);
#ifdef GROUP
  peak = group_max(peak, scratch);
#endif
#endif
  float acc = REDUCE_START;
  for (int r = first; r < redCount; r += step) acc = reduce_step(acc, src[base + reduced_offset(r, nRed, rd, rs)], peak);
#ifdef GROUP
  acc = group_reduce(REDUCE_MERGE, acc, scratch);
  if (first != 0) return;
#endif
#if defined(REDUCE_MEAN)
  acc = acc / (float)redCount;
#elif defined(REDUCE_L2)
  acc = sqrt(acc);
#elif defined(REDUCE_LOGSUM)
  acc = log(acc);
#elif defined(REDUCE_LOGSUMEXP)
  acc = isinf(peak) ? peak : peak + log(acc);
#endif
  dst[o] = acc;
}
