// variants: MAX, AVG ; precision: fp32 fp16
// Max / average pooling over up to 3 spatial dims of NCHW planes (global pools use the
// whole plane as the window). P: 0 count, 1 countIncludePad, 2..4 in DHW, 5..7 out DHW,
// 8..10 kernel, 11..13 stride, 14..16 dilation, 17..19 pad begin, 20..22 pad end
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);
TENSOR_OUT(1, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int D = pint(2), H = pint(3), W = pint(4), OD = pint(5), OH = pint(6), OW = pint(7);
  int ox = int(i % uint(OW)), oy = int((i / uint(OW)) % uint(OH)), oz = int((i / uint(OW * OH)) % uint(OD));
  int plane = int(i / uint(OW * OH * OD));
  int base = plane * D * H * W;
#ifdef MAX
  float acc = -1.0 / 0.0;
#else
  float acc = 0.0;
  int inside = 0, padded = 0;
#endif
  for (int kz = 0; kz < pint(8); ++kz) {
    int iz = oz * pint(11) - pint(17) + kz * pint(14);
    for (int ky = 0; ky < pint(9); ++ky) {
      int iy = oy * pint(12) - pint(18) + ky * pint(15);
      for (int kx = 0; kx < pint(10); ++kx) {
        int ix = ox * pint(13) - pint(19) + kx * pint(16);
        bool ok = iz >= 0 && iz < D && iy >= 0 && iy < H && ix >= 0 && ix < W;
#ifdef MAX
        if (ok) acc = max(acc, LD(x[base + (iz * H + iy) * W + ix]));
#else
        if (ok) { acc += LD(x[base + (iz * H + iy) * W + ix]); inside++; }
        if (iz >= -pint(17) && iz < D + pint(20) && iy >= -pint(18) && iy < H + pint(21) &&
            ix >= -pint(19) && ix < W + pint(22)) padded++;
#endif
      }
    }
  }
#ifdef AVG
  int count = pint(1) != 0 ? padded : inside;
  acc = count > 0 ? acc / float(count) : 0.0;
#endif
  y[i] = ST(acc);
}
