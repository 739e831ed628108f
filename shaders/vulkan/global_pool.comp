// variants: MAX, AVG, MAX_IMAGE, AVG_IMAGE ; precision: fp32 fp16 ; subgroup: *
// GlobalMaxPool / GlobalAveragePool on NC4HW4 (*_IMAGE: storage images, else NCHW buffers,
// see NC4_IN): one work-group per (batch, channel block), its 64 invocations striding over
// the plane and meeting in workgroup.glsl's tree. pool.comp would give the whole plane to one
// invocation: a GPU's threads idle while a few walk 25 600 pixels each, and lavapipe ends
// such a loop early (docs/VULKAN.md).
// P: 0 work-groups (N * C4), 1 C, 2 rows (D * H), 3 W
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(MAX_IMAGE) || defined(AVG_IMAGE)
#define IMAGE
#endif
#if defined(MAX) || defined(MAX_IMAGE)
#define KIND_MAX
#endif
#include "common.glsl"
#include "workgroup.glsl"
NC4_IN(0, x);
NC4_OUT(1, y);

#ifdef KIND_MAX
const int MERGE = WG_MAX;
#else
const int MERGE = WG_SUM;
#endif

void main() {
  uint group = gid() / 64u;  // the same for all the work-group's invocations
  if (group >= P[0]) return;
  int C = pint(1), rows = pint(2), W = pint(3), C4 = (C + 3) / 4;
  int c4 = int(group % uint(C4)), n = int(group / uint(C4));
  uint l = gl_LocalInvocationID.x;
#ifdef KIND_MAX
  vec4 acc = vec4(-1.0 / 0.0);
#else
  vec4 acc = vec4(0.0);
#endif
  int plane = rows * W;
  for (int q = int(l); q < plane; q += 64) acc = wgMerge(MERGE, acc, load_x(ivec3(C, rows, W), n, c4, q / W, q % W));
  acc = workgroupReduce(acc, MERGE);
  if (l != 0u) return;
#ifdef KIND_MAX
  vec4 result = acc;
#else
  vec4 result = plane > 0 ? acc / float(plane) : vec4(0.0);
#endif
  store_y(ivec3(C, 1, 1), n, c4, 0, 0, result);
}
