// variants: PLAIN, IMAGE, PLAIN_SELF, IMAGE_SELF, PLAIN_PARTS, IMAGE_PARTS ; precision: fp32 fp16
// SqueezeExcite (ops/SqueezeExcite.hpp) on NC4HW4 (IMAGE: storage images, else NCHW buffers,
// see NC4_IN). One work-group per (batch, run of B channel blocks, tile of pixels): it
// computes the hidden vector from the pooled one in work-group memory, then its channels'
// gates, then scales its blocks' pixels. Every group repeats the hidden vector (C * C1
// multiply-adds): on a GPU, where the groups run side by side, that is cheaper than the two
// dispatches it replaces (B = 1); on a CPU driver, where they take turns, B is every block
// (SqueezeExciteParams::blocksPerGroup).
// w: W1 transposed [C][C1] (so the invocations of a group read consecutive floats), B1 [C1],
// W2 [C][C1], B2 [C], all fp32.
// Where the node has no `pooled` input: *_SELF (a small plane, SqueezeExciteParams::
// meansInKernel) has each work-group take X's channel means itself, one block an
// invocation, in place of a GlobalAveragePool dispatch; *_PARTS reads the sums that
// global_pool.comp's PARTIAL dispatch left in `part` ([N][C4][S] vec4) and adds them
// (S = P[15]).
// P: 0 work-groups, 1 C, 2 H, 3 W, 4 C1, 5 pixel tiles, 6 B, 7 hidden activation code,
//    8 9 its parameters, 10 gate activation code, 11 12 its parameters, 13 14 the gate's
//    scale and shift after it, 15 S (PARTS)
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(IMAGE_SELF) || defined(IMAGE_PARTS)
#define IMAGE
#endif
#if defined(PLAIN_SELF) || defined(IMAGE_SELF)
#define SELF
#endif
#if defined(PLAIN_PARTS) || defined(IMAGE_PARTS)
#define PARTS
#endif
#include "common.glsl"
NC4_IN(0, x);
#if defined(PARTS)
F32X4_IN(1, part);
#elif !defined(SELF)
NC4_IN(1, pooled);
#endif
F32_IN(2, w);
NC4_OUT(3, y);

const int kMaxChannels = 1024;  // SqueezeExciteParams::kMaxChannels
shared float pooledS[kMaxChannels];
shared float hiddenS[kMaxChannels];
shared float gateS[kMaxChannels];

void main() {
  uint group = gid() / 64u;  // the same for all the work-group's invocations
  if (group >= P[0]) return;
  int C = pint(1), H = pint(2), W = pint(3), C1 = pint(4), tiles = pint(5), B = pint(6), C4 = (C + 3) / 4;
  int runs = (C4 + B - 1) / B, tile = int(group % uint(tiles)), run = int((group / uint(tiles)) % uint(runs));
  int n = int(group / uint(tiles * runs)), l = int(gl_LocalInvocationID.x);
  for (int q = l; q < C4; q += 64) {
#if defined(SELF)
    vec4 v = vec4(0.0);
    for (int p = 0; p < H * W; ++p) v += load_x(ivec3(C, H, W), n, q, p / W, p % W);
    v /= float(H * W);
#elif defined(PARTS)
    vec4 v = vec4(0.0);
    int S = pint(15);
    for (int t = 0; t < S; ++t) v += part[(n * C4 + q) * S + t];
    v /= float(H * W);
#else
    vec4 v = load_pooled(ivec3(C, 1, 1), n, q, 0, 0);
#endif
    for (int k = 0; k < 4 && q * 4 + k < C; ++k) pooledS[q * 4 + k] = v[k];
  }
  barrier();
  int b1 = C * C1, w2 = b1 + C1, b2 = w2 + C * C1;
  for (int j = l; j < C1; j += 64) {
    float s = w[b1 + j];
    for (int c = 0; c < C; ++c) s += w[c * C1 + j] * pooledS[c];
    hiddenS[j] = activate(pint(7), s, pfloat(8), pfloat(9));
  }
  barrier();
  int first = run * B, blocks = min(B, C4 - first);
  for (int k = l; k < blocks * 4; k += 64) {
    int c = first * 4 + k;
    float s = 0.0;  // lanes past C
    if (c < C) {
      s = w[b2 + c];
      for (int j = 0; j < C1; ++j) s += w[w2 + c * C1 + j] * hiddenS[j];
      s = activate(pint(10), s, pfloat(11), pfloat(12)) * pfloat(13) + pfloat(14);
    }
    gateS[k] = s;
  }
  barrier();
  int plane = H * W, per = (plane + tiles - 1) / tiles, begin = tile * per, len = min(plane, begin + per) - begin;
  ivec3 g = ivec3(C, H, W);
  for (int q = l; q < blocks * len; q += 64) {
    int b = q / len, p = begin + q % len, y = p / W, x = p % W;
    vec4 gate = vec4(gateS[4 * b], gateS[4 * b + 1], gateS[4 * b + 2], gateS[4 * b + 3]);
    store_y(g, n, first + b, y, x, load_x(g, n, first + b, y, x) * gate);
  }
}
