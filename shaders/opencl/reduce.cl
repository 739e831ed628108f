// The Reduce* family on plain f32 buffers, accumulating in fp32. -DREDUCE_<KIND>.
// An output element sits at input offset base (from the kept dims); the reduced dims are
// walked with their own extents and strides (rank <= 8 each).

inline long reduced_offset(int r, int nRed, const int* rd, const int* rs) {
  long off = 0;
  for (int k = nRed - 1; k >= 0; --k) {
    off += (long)(r % rd[k]) * rs[k];
    r /= rd[k];
  }
  return off;
}

// global: (outCount)
__kernel void reduce(__global const float* src, __global float* dst, int outCount, int nKept,
                     int8 keptDims, int8 keptStrides, int nRed, int8 redDims, int8 redStrides,
                     int redCount) {
  const int o = get_global_id(0);
  if (o >= outCount) return;
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
#if defined(REDUCE_LOGSUMEXP)
  float peak = -INFINITY;
  for (int r = 0; r < redCount; ++r) peak = fmax(peak, src[base + reduced_offset(r, nRed, rd, rs)]);
  float acc = 0.f;
  for (int r = 0; r < redCount; ++r) acc += exp(src[base + reduced_offset(r, nRed, rd, rs)] - peak);
  acc = isinf(peak) ? peak : peak + log(acc);
#else
#if defined(REDUCE_MAX)
  float acc = -INFINITY;
#elif defined(REDUCE_MIN)
  float acc = INFINITY;
#elif defined(REDUCE_PROD)
  float acc = 1.f;
#else
  float acc = 0.f;
#endif
  for (int r = 0; r < redCount; ++r) {
    const float v = src[base + reduced_offset(r, nRed, rd, rs)];
#if defined(REDUCE_MAX)
    acc = isnan(v) ? v : fmax(acc, v);
#elif defined(REDUCE_MIN)
    acc = isnan(v) ? v : fmin(acc, v);
#elif defined(REDUCE_PROD)
    acc *= v;
#elif defined(REDUCE_L1)
    acc += fabs(v);
#elif defined(REDUCE_L2) || defined(REDUCE_SUMSQUARE)
    acc += v * v;
#else
    acc += v;
#endif
  }
#if defined(REDUCE_MEAN)
  acc = acc / (float)redCount;
#elif defined(REDUCE_L2)
  acc = sqrt(acc);
#elif defined(REDUCE_LOGSUM)
  acc = log(acc);
#endif
#endif
  dst[o] = acc;
}
