// variants: ; precision: fp32 fp16
// Copies every pixel of an NC4HW4 image into another image at an offset in (n, c4, y, x):
// Concat of NC4HW4 tensors along N, H, W, or along C at multiples of 4 channels.
// P: 0 pixels, 1..3 x C H W, 4..6 y C H W, 7..10 offset n c4 y x
#version 450
#extension GL_GOOGLE_include_directive : require
#define IMAGE
#include "common.glsl"
NC4_IN(0, x);
NC4_OUT(1, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  ivec3 gx = ivec3(pint(1), pint(2), pint(3)), gy = ivec3(pint(4), pint(5), pint(6));
  ivec4 p = pixelOf(i, gx), o = ivec4(pint(7), pint(8), pint(9), pint(10));
  store_y(gy, p.x + o.x, p.y + o.y, p.z + o.z, p.w + o.w, load_x(gx, p.x, p.y, p.z, p.w));
}
