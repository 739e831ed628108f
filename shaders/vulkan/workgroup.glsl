// Work-group reductions for kernels whose 64 invocations (common.glsl's local size) share one
// result: each passes its partial value and every one gets the total, through a tree in shared
// memory. Call from control flow that is uniform over the work-group (barriers inside).
shared float wgPartial[64];

float workgroupSum(float v) {
  uint l = gl_LocalInvocationID.x;
  wgPartial[l] = v;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (l < s) wgPartial[l] += wgPartial[l + s];
    barrier();
  }
  float total = wgPartial[0];
  barrier();  // every invocation has read it: the array is free for the next call
  return total;
}
