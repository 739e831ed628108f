// variants: THREAD, GROUP ; precision: fp32 fp16 ; subgroup: GROUP
// Hardmax over the middle axis of [outer, n, inner] (ops/Softmax.hpp's split): 1 at a line's
// first maximum and 0 elsewhere. As on the CPU (numpy's argmax), a NaN counts as the maximum:
// the first NaN wins (workgroup.glsl's argWins). THREAD: a line per invocation; GROUP (lines
// of 128 or more): a line per work-group of 64, each invocation's first maximum met in
// workgroup.glsl's (value, index) tree. P: 0 lines (outer*inner), 1 n, 2 inner
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "lines.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

void main() {
  uint i = lineIndex();
  if (i >= P[0]) return;
  int n = pint(1), inner = pint(2);
  int base = int(i / uint(inner)) * n * inner + int(i % uint(inner));
  float top = 0.0;
  int best = -1;  // none yet
  for (int k = lineFirst(); k < n; k += LINE_STEP) {
    float v = LD(x[base + k * inner]);
    if (argWins(v, k, top, best, true, false)) {
      top = v;
      best = k;
    }
  }
  best = lineArgBest(top, best, true, false);
  for (int k = lineFirst(); k < n; k += LINE_STEP) y[base + k * inner] = ST(k == best ? 1.0 : 0.0);
}
