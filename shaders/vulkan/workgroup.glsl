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

// Arg-extreme candidates (value, index; index < 0: none): whether a beats b. The larger
// (isMax) or smaller value wins, a tie the lower index, or the higher with `last`. A NaN
// candidate beats every number (Hardmax's rule; ArgMax/ArgMin skip NaNs before).
bool argWins(float va, int ia, float vb, int ib, bool isMax, bool last) {
  if (ia < 0 || ib < 0) return ib < 0 && ia >= 0;
  bool na = isnan(va), nb = isnan(vb);
  if (na != nb) return na;
  if (!na && va != vb) return isMax ? va > vb : va < vb;
  return last ? ia > ib : ia < ib;
}

shared int wgIndex[64];

// The index of the work-group's winning candidate (argWins), -1 if none has one.
int workgroupArgBest(float v, int idx, bool isMax, bool last) {
  uint l = gl_LocalInvocationID.x;
  wgPartial[l] = v;
  wgIndex[l] = idx;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (l < s && argWins(wgPartial[l + s], wgIndex[l + s], wgPartial[l], wgIndex[l], isMax, last)) {
      wgPartial[l] = wgPartial[l + s];
      wgIndex[l] = wgIndex[l + s];
    }
    barrier();
  }
  int best = wgIndex[0];
  barrier();  // every invocation has read it
  return best;
}
