// Work-group reductions for kernels whose 64 invocations (common.glsl's local size) share one
// result: each passes its partial value and every one gets the total, through a tree in shared
// memory. Call from control flow that is uniform over the work-group (barriers inside).
const int WG_SUM = 0, WG_MAX = 1, WG_MIN = 2, WG_PRODUCT = 3;

shared float wgPartial[64];

float wgMerge(int op, float a, float b) {
  return op == WG_MAX ? max(a, b) : op == WG_MIN ? min(a, b) : op == WG_PRODUCT ? a * b : a + b;
}

// v merged over the work-group with `op` (one of WG_*).
float workgroupReduce(float v, int op) {
  uint l = gl_LocalInvocationID.x;
  wgPartial[l] = v;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (l < s) wgPartial[l] = wgMerge(op, wgPartial[l], wgPartial[l + s]);
    barrier();
  }
  float total = wgPartial[0];
  barrier();  // every invocation has read it: the array is free for the next call
  return total;
}

float workgroupSum(float v) { return workgroupReduce(v, WG_SUM); }
float workgroupMax(float v) { return workgroupReduce(v, WG_MAX); }
