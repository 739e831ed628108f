// Hardmax on plain f32 buffers seen as [outer, n, inner] (ops/Softmax.hpp's split): one line
// per work item, 1 at its first maximum and 0 elsewhere. As on the CPU (numpy's argmax), a
// NaN counts as the maximum: the first NaN wins. global: (inner, outer)
__kernel void hardmax(__global const float* src, __global float* dst, int outer, int n, int inner) {
  const int i = get_global_id(0), o = get_global_id(1);
  if (i >= inner || o >= outer) return;
  const size_t base = (size_t)o * n * inner + i;
  int best = 0;
  float top = src[base];
  for (int k = 1; k < n && !isnan(top); ++k) {
    const float v = src[base + (size_t)k * inner];
    if (v > top || isnan(v)) {
      top = v;
      best = k;
    }
  }
  for (int k = 0; k < n; ++k) dst[base + (size_t)k * inner] = k == best ? 1.f : 0.f;
}
