// variants: THREAD, GROUP ; precision: fp32 fp16 ; subgroup: GROUP
// Reduce* over any set of axes (rank <= 6), fp32 accumulation. THREAD: one output per
// invocation, its loop over every reduced element (few reduced elements, many outputs).
// GROUP: one output per work-group, its 64 invocations striding over the reduced elements
// and meeting in workgroup.glsl's tree (a whole-image or whole-axis reduction: one invocation
// alone would walk it serially, leave a GPU idle, and on lavapipe pass the driver's loop
// limit, docs/VULKAN.md).
// P: 0 outputs, 1 rank, 2..7 in dims, 8 reduced-axes mask, 9 kind (ReduceKind), 10 reduced
//    element count
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "lines.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

int strides[6];

// Offset of reduced element r from the output's base.
int reducedOffset(int r, int rank, int mask) {
  int off = 0;
  for (int d = rank - 1; d >= 0; --d) {
    if ((mask & (1 << d)) == 0) continue;
    off += (r % pint(2 + d)) * strides[d];
    r /= pint(2 + d);
  }
  return off;
}

float identityOf(int kind) {
  return kind == 2 ? -1.0 / 0.0 : kind == 3 ? 1.0 / 0.0 : kind == 4 ? 1.0 : 0.0;
}

// acc combined with one element v (log-sum-exp: exp(v - mx) summed).
float combine(int kind, float acc, float v, float mx) {
  switch (kind) {
    case 2: return max(acc, v);
    case 3: return min(acc, v);
    case 4: return acc * v;
    case 5: return acc + abs(v);
    case 6: case 7: return acc + v * v;
    case 8: return acc + exp(v - mx);
    default: return acc + v;
  }
}

// How two partial results of `kind` meet (sums for every kind but max, min and product).
int mergeOp(int kind) { return kind == 2 ? WG_MAX : kind == 3 ? WG_MIN : kind == 4 ? WG_PRODUCT : WG_SUM; }

void main() {
  uint i = lineIndex();  // the output
  int first = lineFirst(), step = LINE_STEP;
  if (i >= P[0]) return;
  int rank = pint(1), mask = pint(8), kind = pint(9), R = pint(10);
  int s = 1;
  for (int d = rank - 1; d >= 0; --d) { strides[d] = s; s *= pint(2 + d); }
  uint rem = i;
  int base = 0;
  for (int d = rank - 1; d >= 0; --d) {
    if ((mask & (1 << d)) != 0) continue;
    uint dim = P[2 + d];
    base += int(rem % dim) * strides[d];
    rem /= dim;
  }
  float mx = -1.0 / 0.0;
  if (kind == 8) {  // log-sum-exp: the maximum first
    for (int r = first; r < R; r += step) mx = max(mx, LD(x[base + reducedOffset(r, rank, mask)]));
    mx = lineMax(mx);
  }
  float acc = identityOf(kind);
  for (int r = first; r < R; r += step) acc = combine(kind, acc, LD(x[base + reducedOffset(r, rank, mask)]), mx);
  acc = lineReduce(acc, mergeOp(kind));
  if (!lineLeader()) return;
  if (kind == 1) acc /= float(R);
  else if (kind == 6) acc = sqrt(acc);
  else if (kind == 8) acc = (R == 0) ? -1.0 / 0.0 : mx + log(acc);
  else if (kind == 9) acc = log(acc);
  y[i] = ST(acc);
}
