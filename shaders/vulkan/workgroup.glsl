// Work-group reductions for kernels whose 64 invocations (common.glsl's local size) share one
// result: each passes its partial value and every one gets the total. Call from control flow
// that is uniform over the work-group (barriers inside).
// Plain builds meet in a tree in shared memory. SUBGROUP builds (the C++ side runs them where
// the device has subgroup arithmetic and its subgroup size divides 64) first reduce within
// each subgroup (subgroupAdd/Max/..., no barriers), then every invocation merges the
// gl_NumSubgroups partials (2 of 32 lanes on NVIDIA, 8 of 8 on lavapipe, 1 of 64) in order.
const int WG_SUM = 0, WG_MAX = 1, WG_MIN = 2, WG_PRODUCT = 3;

// Scalars ride in a vec4's x (GlobalAverage/MaxPool reduce 4 channels at once): one tree to
// keep right; the three idle lanes cost a few instructions per work-group, nothing next to
// the strided loads before it.
shared vec4 wgPartial[64];

vec4 wgMerge(int op, vec4 a, vec4 b) {
  return op == WG_MAX ? max(a, b) : op == WG_MIN ? min(a, b) : op == WG_PRODUCT ? a * b : a + b;
}

#ifdef SUBGROUP
vec4 subgroupMerge(int op, vec4 v) {
  if (op == WG_MAX) return subgroupMax(v);
  if (op == WG_MIN) return subgroupMin(v);
  if (op == WG_PRODUCT) return subgroupMul(v);
  return subgroupAdd(v);
}
#endif

// v merged over the work-group with `op` (one of WG_*), componentwise.
vec4 workgroupReduce(vec4 v, int op) {
#ifdef SUBGROUP
  v = subgroupMerge(op, v);
  if (subgroupElect()) wgPartial[gl_SubgroupID] = v;
  barrier();
  vec4 total = wgPartial[0];
  for (uint s = 1u; s < gl_NumSubgroups; ++s) total = wgMerge(op, total, wgPartial[s]);
#else
  uint l = gl_LocalInvocationID.x;
  wgPartial[l] = v;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (l < s) wgPartial[l] = wgMerge(op, wgPartial[l], wgPartial[l + s]);
    barrier();
  }
  vec4 total = wgPartial[0];
#endif
  barrier();  // every invocation has read it: the array is free for the next call
  return total;
}

float workgroupReduce(float v, int op) { return workgroupReduce(vec4(v, 0.0, 0.0, 0.0), op).x; }
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

shared float wgArgValue[64];
shared int wgIndex[64];

#ifdef SUBGROUP
// The subgroup's winning candidate by argWins' rules (a total order, indices being distinct,
// so any order of meeting finds the same one): NaNs first if any, else the extreme value
// (values compared negated for the minimum; +0 and -0 tie), then the lowest (highest with
// `last`) index among the candidates left. Index -1 if none.
int subgroupArgBest(float v, int idx, bool isMax, bool last, out float best) {
  bool nan = idx >= 0 && isnan(v);
  bool anyNan = subgroupMax(nan ? 1 : 0) == 1;
  float key = isMax ? v : -v;
  float top = subgroupMax(idx >= 0 && !anyNan ? key : -1.0 / 0.0);
  bool candidate = idx >= 0 && (anyNan ? nan : key == top);
  int i = last ? subgroupMax(candidate ? idx : -1) : subgroupMin(candidate ? idx : 0x7fffffff);
  best = anyNan ? uintBitsToFloat(0x7fc00000u) : (isMax ? top : -top);
  return i == 0x7fffffff ? -1 : i;
}
#endif

// The index of the work-group's winning candidate (argWins), -1 if none has one.
int workgroupArgBest(float v, int idx, bool isMax, bool last) {
#ifdef SUBGROUP
  float sv;
  int si = subgroupArgBest(v, idx, isMax, last, sv);
  if (subgroupElect()) {
    wgArgValue[gl_SubgroupID] = sv;
    wgIndex[gl_SubgroupID] = si;
  }
  barrier();
  float bv = wgArgValue[0];
  int best = wgIndex[0];
  for (uint s = 1u; s < gl_NumSubgroups; ++s)
    if (argWins(wgArgValue[s], wgIndex[s], bv, best, isMax, last)) {
      bv = wgArgValue[s];
      best = wgIndex[s];
    }
#else
  uint l = gl_LocalInvocationID.x;
  wgArgValue[l] = v;
  wgIndex[l] = idx;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (l < s && argWins(wgArgValue[l + s], wgIndex[l + s], wgArgValue[l], wgIndex[l], isMax, last)) {
      wgArgValue[l] = wgArgValue[l + s];
      wgIndex[l] = wgIndex[l + s];
    }
    barrier();
  }
  int best = wgIndex[0];
#endif
  barrier();  // every invocation has read it
  return best;
}
