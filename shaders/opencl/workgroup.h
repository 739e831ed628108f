// Work-group reductions for kernels whose items share one result, in a work-group of
// WG_SIZE items (a power of 2, a build option; the kernel declares it with
// reqd_work_group_size): each passes its partial value and every one gets the total, through
// a tree in `scratch` (WG_SIZE floats of local memory). Call from every item of the group.
inline float group_sum(float v, __local float* scratch) {
  const int l = get_local_id(0);
  scratch[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG_SIZE / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // every item has read it: scratch is free for the next call
  return total;
}
