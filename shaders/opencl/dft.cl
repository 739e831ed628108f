// DFT as a direct sum (ops/Dft.hpp): x [outer, n, inner, C] -> y [outer, bins, inner, 2], one
// output bin per work item, y[k] = scale * sum_{j < used} x[j] * tw[(k * j) mod L], the
// twiddles tw ((re, im) pairs) computed on the host in double. The index (k * j) mod L is
// stepped by k, so it never overflows. Cost: `used` complex multiply-adds per bin.
// global: (inner, bins, outer)
__kernel void dft(__global const float* x, __global const float2* tw, __global float2* y, int outer, int bins, int inner, int n,
                  int used, int L, int C, float scale) {
  const int i = get_global_id(0), k = get_global_id(1), o = get_global_id(2);
  if (i >= inner || k >= bins || o >= outer) return;
  size_t at = ((size_t)o * n * inner + i) * C;
  const size_t stride = (size_t)inner * C;
  float2 sum = (float2)(0.f, 0.f);
  int m = 0;  // (k * j) mod L
  for (int j = 0; j < used; ++j, at += stride) {
    const float2 w = tw[m];
    const float a = x[at], b = C == 2 ? x[at + 1] : 0.f;
    sum += (float2)(a * w.x - b * w.y, a * w.y + b * w.x);
    m += k;
    if (m >= L) m -= L;
  }
  y[((size_t)o * bins + k) * inner + i] = sum * scale;
}
