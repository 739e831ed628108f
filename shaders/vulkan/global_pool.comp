// variants: MAX, AVG, MAX_IMAGE, AVG_IMAGE, MAX_PARTIAL, AVG_PARTIAL, MAX_PARTIAL_IMAGE, AVG_PARTIAL_IMAGE, MAX_MERGE, AVG_MERGE, MAX_MERGE_IMAGE, AVG_MERGE_IMAGE ; precision: fp32 fp16 ; subgroup: *
// GlobalMaxPool / GlobalAveragePool on NC4HW4 (*_IMAGE: storage images, else NCHW buffers,
// see NC4_IN): one work-group per (batch, channel block), its 64 invocations striding over
// the plane and meeting in workgroup.glsl's tree. pool.comp would give the whole plane to one
// invocation: a GPU's threads idle while a few walk 25 600 pixels each, and lavapipe ends
// such a loop early (docs/VULKAN.md).
// Where those work-groups are too few for a GPU (PP-OCRv4 det's 24 channels at 160x160: 6
// groups walking 25 600 pixels), the plane is split in S parts over two dispatches: PARTIAL
// (a work-group per part, its fp32 result into `part`) then MERGE (an invocation per output
// merging its S parts in order).
// P (whole, PARTIAL): 0 work-groups (N * C4 * S), 1 C, 2 rows (D * H), 3 W, 4 S
// P (MERGE): 0 outputs (N * C4), 1 C, 2 S, 3 pixels of the plane
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(MAX_IMAGE) || defined(AVG_IMAGE) || defined(MAX_PARTIAL_IMAGE) || defined(AVG_PARTIAL_IMAGE) || \
    defined(MAX_MERGE_IMAGE) || defined(AVG_MERGE_IMAGE)
#define IMAGE
#endif
#if defined(MAX) || defined(MAX_IMAGE) || defined(MAX_PARTIAL) || defined(MAX_PARTIAL_IMAGE) || defined(MAX_MERGE) || \
    defined(MAX_MERGE_IMAGE)
#define KIND_MAX
#endif
#if defined(MAX_PARTIAL) || defined(AVG_PARTIAL) || defined(MAX_PARTIAL_IMAGE) || defined(AVG_PARTIAL_IMAGE)
#define PARTIAL
#endif
#if defined(MAX_MERGE) || defined(AVG_MERGE) || defined(MAX_MERGE_IMAGE) || defined(AVG_MERGE_IMAGE)
#define MERGE
#endif
#include "common.glsl"
#include "workgroup.glsl"
#ifdef MERGE
F32X4_IN(0, part);
NC4_OUT(1, y);
#else
NC4_IN(0, x);
#ifdef PARTIAL
layout(std430, set = 0, binding = 1) writeonly buffer Buf1 { vec4 part[]; };
#else
NC4_OUT(1, y);
#endif
#endif

#ifdef KIND_MAX
const int MERGE_OP = WG_MAX;
const vec4 START = vec4(-1.0 / 0.0);
#else
const int MERGE_OP = WG_SUM;
const vec4 START = vec4(0.0);
#endif

// The pooled value from the reduction `acc` over `plane` pixels.
vec4 finish(vec4 acc, int plane) {
#ifdef KIND_MAX
  return acc;
#else
  return plane > 0 ? acc / float(plane) : vec4(0.0);
#endif
}

#ifdef MERGE
void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int C = pint(1), S = pint(2), C4 = (C + 3) / 4;
  vec4 acc = START;
  for (int s = 0; s < S; ++s) acc = wgMerge(MERGE_OP, acc, part[i * uint(S) + uint(s)]);
  store_y(ivec3(C, 1, 1), int(i) / C4, int(i) % C4, 0, 0, finish(acc, pint(3)));
}
#else
void main() {
  uint group = gid() / 64u;  // the same for all the work-group's invocations
  if (group >= P[0]) return;
  int C = pint(1), rows = pint(2), W = pint(3), S = pint(4), C4 = (C + 3) / 4;
  int s = int(group % uint(S)), c4 = int((group / uint(S)) % uint(C4)), n = int(group / uint(S * C4));
  uint l = gl_LocalInvocationID.x;
  int plane = rows * W, per = (plane + S - 1) / S, end = min(plane, (s + 1) * per);
  vec4 acc = START;
  for (int q = s * per + int(l); q < end; q += 64)
    acc = wgMerge(MERGE_OP, acc, load_x(ivec3(C, rows, W), n, c4, q / W, q % W));
  acc = workgroupReduce(acc, MERGE_OP);
  if (l != 0u) return;
#ifdef PARTIAL
  part[group] = acc;
#else
  store_y(ivec3(C, 1, 1), n, c4, 0, 0, finish(acc, plane));
#endif
}
#endif
