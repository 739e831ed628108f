// MeanVarianceNormalization (ops/MeanVarianceNormalization.hpp) on plain f32 buffers:
// y = (x - mean) / (std + EPSILON) per group, a group being one index over the kept dims and
// its members every index over the reduced ones. One work-group per group: its WG_SIZE items
// stride over the members, the fp32 sums meet in group_sum; two passes (mean, then
// E[(x - mean)^2]) as on the CPU. dims: the shape with unit dims dropped and runs merged
// (rank <= 8), reducedMask: bit d set when dim d is reduced. global: (groups * WG_SIZE)
#include "workgroup.h"

// The element offset of index q (row-major) over the dims that are reduced (or kept).
inline int offset_over(int q, int rank, const int* d, int reducedMask, int reduced) {
  int off = 0, stride = 1;
  for (int k = rank - 1; k >= 0; --k) {
    if (((reducedMask >> k) & 1) == reduced) {
      off += (q % d[k]) * stride;
      q /= d[k];
    }
    stride *= d[k];
  }
  return off;
}

__attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))
__kernel void mvn(__global const float* src, __global float* dst, int members, int rank, int8 dims, int reducedMask) {
  __local float scratch[WG_SIZE];
  const int d[8] = {dims.s0, dims.s1, dims.s2, dims.s3, dims.s4, dims.s5, dims.s6, dims.s7};
  const int l = get_local_id(0);
  const int base = offset_over(get_group_id(0), rank, d, reducedMask, 0);
  float sum = 0.f;
  for (int r = l; r < members; r += WG_SIZE) sum += src[base + offset_over(r, rank, d, reducedMask, 1)];
  const float mean = group_sum(sum, scratch) / (float)members;
  float squares = 0.f;
  for (int r = l; r < members; r += WG_SIZE) {
    const float v = src[base + offset_over(r, rank, d, reducedMask, 1)] - mean;
    squares += v * v;
  }
  const float scale = 1.f / (sqrt(group_sum(squares, scratch) / (float)members) + EPSILON);
  for (int r = l; r < members; r += WG_SIZE) {
    const int i = base + offset_over(r, rank, d, reducedMask, 1);
    dst[i] = (src[i] - mean) * scale;
  }
}
