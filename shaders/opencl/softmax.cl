// Softmax / LogSoftmax (-DLOG_SOFTMAX) on plain f32 buffers seen as [outer, n, inner],
// normalising over n. global: (inner, outer)
__kernel void softmax(__global const float* src, __global float* dst, int outer, int n, int inner) {
  const int i = get_global_id(0), o = get_global_id(1);
  if (i >= inner || o >= outer) return;
  const size_t base = (size_t)o * n * inner + i;
  float peak = -INFINITY;
  for (int k = 0; k < n; ++k) peak = fmax(peak, src[base + (size_t)k * inner]);
  float sum = 0.f;
  for (int k = 0; k < n; ++k) sum += exp(src[base + (size_t)k * inner] - peak);
#ifdef LOG_SOFTMAX
  const float logSum = log(sum);
  for (int k = 0; k < n; ++k) dst[base + (size_t)k * inner] = src[base + (size_t)k * inner] - peak - logSum;
#else
  const float inv = 1.f / sum;
  for (int k = 0; k < n; ++k) dst[base + (size_t)k * inner] = exp(src[base + (size_t)k * inner] - peak) * inv;
#endif
}
