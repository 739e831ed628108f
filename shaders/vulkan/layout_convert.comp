// variants: UP_NCHW, UP_SAME, DOWN_NC4HW4, DOWN_SAME ; precision: fp32 fp16
// Host transfers on the GPU: UP_* read an fp32 staging buffer (NC4HW4 = [N, ceil(C/4),
// spatial, 4], or NCHW) into a tensor (NCHW, in the storage type: fp16 in fp16 mode);
// DOWN_* write a tensor out to an fp32 staging buffer (NC4HW4, or NCHW). So host transfers
// stay plain memcpy's. P: 0 total (elements written), 1 C, 2 spatial
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#if defined(UP_NCHW) || defined(UP_SAME)
F32_IN(0, src);
TENSOR_OUT(1, dst);
#define CONVERT(v) ST(v)
#else
TENSOR_IN(0, src);
F32_OUT(1, dst);
#define CONVERT(v) LD(v)
#endif

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  uint C = P[1], S = P[2], C4 = (C + 3u) / 4u;
#if defined(UP_NCHW)
  uint s = i % S, c = (i / S) % C, n = i / (S * C);
  dst[i] = CONVERT(src[((n * C4 + c / 4u) * S + s) * 4u + (c % 4u)]);
#elif defined(DOWN_NC4HW4)
  uint lane = i % 4u, s = (i / 4u) % S, c4 = (i / (4u * S)) % C4, n = i / (4u * S * C4);
  uint c = c4 * 4u + lane;
  dst[i] = c < C ? CONVERT(src[(n * C + c) * S + s]) : 0.0;
#else
  dst[i] = CONVERT(src[i]);
#endif
}
