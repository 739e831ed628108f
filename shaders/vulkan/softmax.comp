// variants: THREAD, GROUP ; precision: fp32 fp16
// Softmax / LogSoftmax over the middle axis of [outer, n, inner], accumulated in fp32 with
// the line's maximum subtracted. THREAD: one line per invocation (short lines). GROUP: one
// line per work-group of 64 (long lines: a vocabulary, a whole image), its invocations
// striding over the line, the maximum and the sum met in workgroup.glsl's trees; one invocation
// alone would walk it three times over, idling a GPU, and on lavapipe past its loop limit
// (docs/VULKAN.md). P: 0 lines (outer*inner), 1 n, 2 inner, 3 log
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

#ifdef GROUP
#include "workgroup.glsl"
#endif

void main() {
#ifdef GROUP
  uint i = gid() / 64u;  // the work-group's line: the same for all its invocations
  int first = int(gl_LocalInvocationID.x), step = 64;
#else
  uint i = gid();
  int first = 0, step = 1;
#endif
  if (i >= P[0]) return;
  int n = pint(1), inner = pint(2);
  int base = int(i / uint(inner)) * n * inner + int(i % uint(inner));
  float mx = -1.0 / 0.0;
  for (int k = first; k < n; k += step) mx = max(mx, LD(x[base + k * inner]));
#ifdef GROUP
  mx = workgroupMax(mx);
#endif
  float sum = 0.0;
  for (int k = first; k < n; k += step) sum += exp(LD(x[base + k * inner]) - mx);
#ifdef GROUP
  sum = workgroupSum(sum);
#endif
  bool lg = pint(3) != 0;
  float ls = log(sum);
  for (int k = first; k < n; k += step) {
    float v = LD(x[base + k * inner]) - mx;
    y[base + k * inner] = ST(lg ? v - ls : exp(v) / sum);
  }
}
