// variants: THREAD, GROUP ; precision: fp32 fp16 ; subgroup: GROUP
// ArgMax / ArgMin over the middle axis of [outer, n, inner] (ops/ArgMinMax.hpp): the int64
// index of the extreme value, written as two 32-bit words (low, high), so no 64-bit
// capability is needed. THREAD: a line per invocation; GROUP (lines of 128 or more): a line
// per work-group of 64, each invocation's best met in workgroup.glsl's (value, index) tree.
// Ties give the first index, or the last with select_last_index, as the CPU's sequential
// scan does; like it, a NaN is never chosen unless it is the first element (which no
// comparison replaces). P: 0 lines (outer*inner), 1 n, 2 inner, 3 isMax, 4 selectLast
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "lines.glsl"
TENSOR_IN(0, x);
layout(std430, set = 0, binding = 1) writeonly buffer Buf1 { ivec2 y[]; };

void main() {
  uint i = lineIndex();
  if (i >= P[0]) return;
  int n = pint(1), inner = pint(2);
  bool isMax = pint(3) != 0, last = pint(4) != 0;
  int base = int(i / uint(inner)) * n * inner + int(i % uint(inner));
  float best = 0.0;
  int at = -1;  // none yet
  for (int k = lineFirst(); k < n; k += LINE_STEP) {
    float v = LD(x[base + k * inner]);
    if (!isnan(v) && argWins(v, k, best, at, isMax, last)) {
      best = v;
      at = k;
    }
  }
  at = lineArgBest(best, at, isMax, last);
  if (!lineLeader()) return;
  if (at < 0 || isnan(LD(x[base]))) at = 0;
  y[i] = ivec2(at, 0);
}
