// variants: ; precision: fp32 fp16 ; subgroup: *
// MeanVarianceNormalization (ops/MeanVarianceNormalization.hpp): y = (x - mean) / (std + eps)
// per group, a group being one index over the kept dims and its members every index over the
// reduced ones. One work-group per group: its 64 invocations stride over the members, the
// fp32 sums meet in workgroupSum; two passes (mean, then E[(x - mean)^2]) as on the CPU.
// P: 0 groups, 1 members, 2 rank, 3..8 dims (unit dims dropped, runs merged), 9 reduced-dims
//    mask, 10 epsilon
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "workgroup.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

// The element offset of index q (row-major) over the dims that are reduced (or kept).
int offsetOver(uint q, bool reduced) {
  int off = 0, stride = 1;
  for (int d = pint(2) - 1; d >= 0; --d) {
    int dim = pint(3 + d);
    if ((((pint(9) >> d) & 1) != 0) == reduced) {
      off += int(q % uint(dim)) * stride;
      q /= uint(dim);
    }
    stride *= dim;
  }
  return off;
}

void main() {
  uint group = gid() / 64u;  // the work-group's index: the same for all its invocations
  if (group >= P[0]) return;
  uint lid = gl_LocalInvocationID.x, m = P[1];
  int base = offsetOver(group, false);
  float sum = 0.0;
  for (uint r = lid; r < m; r += 64u) sum += LD(x[base + offsetOver(r, true)]);
  float mean = workgroupSum(sum) / float(m);
  float squares = 0.0;
  for (uint r = lid; r < m; r += 64u) {
    float d = LD(x[base + offsetOver(r, true)]) - mean;
    squares += d * d;
  }
  float scale = 1.0 / (sqrt(workgroupSum(squares) / float(m)) + pfloat(10));
  for (uint r = lid; r < m; r += 64u) {
    int i = base + offsetOver(r, true);
    y[i] = ST((LD(x[i]) - mean) * scale);
  }
}
