// variants: MAX, AVG, MAX_IMAGE, AVG_IMAGE ; precision: fp32 fp16
// Max / average pooling over up to 3 spatial dims (global pools use the whole plane as the
// window) on NC4HW4 tensors (*_IMAGE: storage images, else NCHW buffers, see NC4_IN), one
// output pixel of 4 channels an invocation.
// P: 0 count, 1 countIncludePad, 2..4 in DHW, 5..7 out DHW, 8..10 kernel, 11..13 stride,
//    14..16 dilation, 17..19 pad begin, 20..22 pad end, 23 C
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(MAX_IMAGE) || defined(AVG_IMAGE)
#define IMAGE
#endif
#if defined(MAX) || defined(MAX_IMAGE)
#define KIND_MAX
#endif
#include "common.glsl"
NC4_IN(0, x);
NC4_OUT(1, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int C = pint(23), D = pint(2), H = pint(3), W = pint(4), OD = pint(5), OH = pint(6), OW = pint(7);
  int C4 = (C + 3) / 4;
  int ox = int(i % uint(OW)), r = int(i / uint(OW));
  int oy = r % OH; r /= OH;
  int oz = r % OD; r /= OD;
  int c4 = r % C4, n = r / C4;
  ivec3 gx = ivec3(C, D * H, W), gy = ivec3(C, OD * OH, OW);
#ifdef KIND_MAX
  vec4 acc = vec4(-1.0 / 0.0);
#else
  vec4 acc = vec4(0.0);
  int inside = 0, padded = 0;
#endif
  for (int kz = 0; kz < pint(8); ++kz) {
    int iz = oz * pint(11) - pint(17) + kz * pint(14);
    for (int ky = 0; ky < pint(9); ++ky) {
      int iy = oy * pint(12) - pint(18) + ky * pint(15);
      for (int kx = 0; kx < pint(10); ++kx) {
        int ix = ox * pint(13) - pint(19) + kx * pint(16);
        bool ok = iz >= 0 && iz < D && iy >= 0 && iy < H && ix >= 0 && ix < W;
#ifdef KIND_MAX
        if (ok) acc = max(acc, load_x(gx, n, c4, iz * H + iy, ix));
#else
        if (ok) { acc += load_x(gx, n, c4, iz * H + iy, ix); inside++; }
        if (iz >= -pint(17) && iz < D + pint(20) && iy >= -pint(18) && iy < H + pint(21) &&
            ix >= -pint(19) && ix < W + pint(22)) padded++;
#endif
      }
    }
  }
#ifndef KIND_MAX
  int count = pint(1) != 0 ? padded : inside;
  acc = count > 0 ? acc / float(count) : vec4(0.0);
#endif
  store_y(gy, n, c4, oz * OH + oy, ox, acc);
}
