// variants: THREAD, GROUP ; precision: fp32 fp16 ; subgroup: GROUP
// Softmax / LogSoftmax over the middle axis of [outer, n, inner], accumulated in fp32 with
// the line's maximum subtracted. THREAD: one line per invocation (short lines). GROUP: one
// line per work-group of 64 (long lines: a vocabulary, a whole image), its invocations
// striding over the line, the maximum and the sum met in workgroup.glsl's trees; one invocation
// alone would walk it three times over, idling a GPU, and on lavapipe past its loop limit
// (docs/VULKAN.md). P: 0 lines (outer*inner), 1 n, 2 inner, 3 log
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
  float mx = -1.0 / 0.0;
  for (int k = lineFirst(); k < n; k += LINE_STEP) mx = max(mx, LD(x[base + k * inner]));
  mx = lineMax(mx);
  float sum = 0.0;
  for (int k = lineFirst(); k < n; k += LINE_STEP) sum += exp(LD(x[base + k * inner]) - mx);
  sum = lineSum(sum);
  bool lg = pint(3) != 0;
  float ls = log(sum);
  for (int k = lineFirst(); k < n; k += LINE_STEP) {
    float v = LD(x[base + k * inner]) - mx;
    y[base + k * inner] = ST(lg ? v - ls : exp(v) / sum);
  }
}
