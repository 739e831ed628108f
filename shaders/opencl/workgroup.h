// Work-group reductions for kernels whose items share one result, in a work-group of
// WG_SIZE items (a power of 2, a build option; the kernel declares it with
// reqd_work_group_size): each passes its partial value and every one gets the total, through
// a tree in `scratch` (WG_SIZE floats, or float4s for the *4 forms, of local memory that the
// kernel declares). Call from every item of the group (barriers inside).
#define WG_SUM 0
#define WG_MAX 1
#define WG_MIN 2
#define WG_PRODUCT 3

// A NaN on either side wins, as in the CPU's Reduce rules (OpenCL's fmax/fmin drop it).
inline float wg_max(float a, float b) { return (b > a || isnan(b)) ? b : a; }
inline float wg_min(float a, float b) { return (b < a || isnan(b)) ? b : a; }
inline float4 wg_max4(float4 a, float4 b) { return select(fmax(a, b), a + b, isnan(a) | isnan(b)); }
inline float4 wg_min4(float4 a, float4 b) { return select(fmin(a, b), a + b, isnan(a) | isnan(b)); }

// a and b met with `op` (one of WG_*; a constant at every call, so the choice folds away).
inline float wg_merge(int op, float a, float b) {
  return op == WG_MAX ? wg_max(a, b) : op == WG_MIN ? wg_min(a, b) : op == WG_PRODUCT ? a * b : a + b;
}
inline float4 wg_merge4(int op, float4 a, float4 b) {
  return op == WG_MAX ? wg_max4(a, b) : op == WG_MIN ? wg_min4(a, b) : op == WG_PRODUCT ? a * b : a + b;
}

inline float group_reduce(int op, float v, __local float* scratch) {
  const int l = get_local_id(0);
  scratch[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG_SIZE / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] = wg_merge(op, scratch[l], scratch[l + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // every item has read it: scratch is free for the next call
  return total;
}

inline float4 group_reduce4(int op, float4 v, __local float4* scratch) {
  const int l = get_local_id(0);
  scratch[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG_SIZE / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] = wg_merge4(op, scratch[l], scratch[l + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float4 total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

inline float group_sum(float v, __local float* scratch) { return group_reduce(WG_SUM, v, scratch); }
inline float group_max(float v, __local float* scratch) { return group_reduce(WG_MAX, v, scratch); }

// Whether candidate j of value w beats candidate i of value v as the WG_MAX (or WG_MIN) of a
// line: any candidate beats none (index -1); a NaN beats any number (numpy's argmax, as
// Hardmax on the CPU; ArgMax/ArgMin never pass one); equals go to the lower index, or to
// the higher with `last` (select_last_index).
inline bool wg_arg_beats(int op, bool last, float w, int j, float v, int i) {
  if (j < 0 || i < 0) return i < 0 && j >= 0;
  if (isnan(w) != isnan(v)) return isnan(w);
  if (w != v && !isnan(w)) return op == WG_MAX ? w > v : w < v;
  return last ? j > i : j < i;
}

// The index of the group's winner (wg_arg_beats) among each item's candidate (v, i) (an
// item with none passes -1; -1 if no item has one); the trees run in `values` and `indices`
// (WG_SIZE each).
inline int group_arg(int op, bool last, float v, int i, __local float* values, __local int* indices) {
  const int l = get_local_id(0);
  values[l] = v;
  indices[l] = i;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG_SIZE / 2; s > 0; s >>= 1) {
    if (l < s && wg_arg_beats(op, last, values[l + s], indices[l + s], values[l], indices[l])) {
      values[l] = values[l + s];
      indices[l] = indices[l + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const int winner = indices[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return winner;
}
