// variants: FROM_NCHW, FROM_NCHW_F32, FROM_PACKED_F32, TO_NCHW, TO_NCHW_F32, TO_PACKED_F32 ; precision: fp32 fp16
// Moves an NC4HW4 tensor between its storage image and a plain buffer, one pixel (4
// channels) an invocation: FROM_* fill the image, TO_* read it out. The buffer is an NCHW
// tensor on the device (in the storage type), or an fp32 staging buffer for host transfers
// (_F32), in NCHW or in the host's packed NC4HW4 ([N, ceil(C/4), H * W, 4]).
// P: 0 pixels, 1 C, 2 H, 3 W (the image grid: see Nc4Grid)
#version 450
#extension GL_GOOGLE_include_directive : require
#define IMAGE
#include "common.glsl"
#if defined(FROM_NCHW) || defined(FROM_NCHW_F32) || defined(FROM_PACKED_F32)
#define FROM
#endif
#if defined(FROM_NCHW_F32) || defined(FROM_PACKED_F32) || defined(TO_NCHW_F32) || defined(TO_PACKED_F32)
#define BUF_T float
#define BUF_LD(v) (v)
#define BUF_ST(v) (v)
#else
#define BUF_T STORAGE
#define BUF_LD(v) LD(v)
#define BUF_ST(v) ST(v)
#endif
#if defined(FROM_PACKED_F32) || defined(TO_PACKED_F32)
#define PACKED
#endif

#ifdef FROM
layout(std430, set = 0, binding = 0) readonly buffer Src { BUF_T src[]; };
NC4_OUT(1, dst);
#else
NC4_IN(0, src);
layout(std430, set = 0, binding = 1) writeonly buffer Dst { BUF_T dst[]; };
#endif

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  ivec3 g = ivec3(pint(1), pint(2), pint(3));
  int C4 = (g.x + 3) / 4, plane = g.y * g.z;
  int x = int(i % uint(g.z)), rest = int(i / uint(g.z));
  int y = rest % g.y; rest /= g.y;
  int c4 = rest % C4, n = rest / C4;
#ifdef PACKED
  int base = ((n * C4 + c4) * plane + y * g.z + x) * 4, step = 1;
#else
  int base = ((n * g.x + c4 * 4) * g.y + y) * g.z + x, step = plane;
#endif
  int left = g.x - c4 * 4;
#ifdef FROM
  vec4 v = vec4(0.0);
  for (int k = 0; k < 4; ++k)
    if (k < left) v[k] = BUF_LD(src[base + k * step]);
  store_dst(g, n, c4, y, x, v);
#else
  vec4 v = load_src(g, n, c4, y, x);
  for (int k = 0; k < 4; ++k)
#ifdef PACKED
    dst[base + k] = BUF_ST(k < left ? v[k] : 0.0);
#else
    if (k < left) dst[base + k * step] = BUF_ST(v[k]);
#endif
#endif
}
