// Det of x [count, M, M] -> y [count]: one work item per matrix, LU with partial pivoting in
// its own copy in `a` (scratch made at resize), step for step as the CPU
// (backends/cpu/ops/Det.cpp): a zero pivot column gives 0, a row swap negates. The pivots'
// product is kept as mantissa * 2^exponent, so it over- or underflows only if the result
// does (the CPU multiplies in double). Cost: M^3 / 3 multiply-adds per matrix, serial per
// work item: parallel only over matrices (ONNX's matrices are tiny; the creator caps M).
// global: (count)
__kernel void det(__global const float* x, __global float* a, __global float* y, int count, int M) {
  const int b = get_global_id(0);
  if (b >= count) return;
  x += (size_t)b * M * M;
  a += (size_t)b * M * M;
  for (int i = 0; i < M * M; ++i) a[i] = x[i];
  float mantissa = 1.f;
  int exponent = 0;
  for (int k = 0; k < M; ++k) {
    int pivot = k;
    for (int i = k + 1; i < M; ++i)
      if (fabs(a[i * M + k]) > fabs(a[pivot * M + k])) pivot = i;
    const float d = a[pivot * M + k];
    if (d == 0.f) {  // singular: a zero column below the diagonal
      mantissa = 0.f;
      break;
    }
    if (pivot != k) {  // columns left of k are no longer read
      for (int j = k; j < M; ++j) {
        const float t = a[k * M + j];
        a[k * M + j] = a[pivot * M + j];
        a[pivot * M + j] = t;
      }
      mantissa = -mantissa;
    }
    int e;
    mantissa = frexp(mantissa * d, &e);
    exponent += e;
    for (int i = k + 1; i < M; ++i) {
      const float f = a[i * M + k] / d;
      for (int j = k + 1; j < M; ++j) a[i * M + j] -= f * a[k * M + j];
    }
  }
  y[b] = ldexp(mantissa, exponent);
}
