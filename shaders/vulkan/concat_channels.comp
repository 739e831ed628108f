// variants: ; precision: fp32 fp16
// Concat of two to four NC4HW4 images along C in one dispatch (every input but the last a
// multiple of 4 channels, so each output pixel's four channels come from one input): an
// invocation per output pixel reads that pixel from its input. Inputs past the count are bound
// to a placeholder whose first block (P[9 + k]) is past every block, so they are never read.
// P: 0 pixels, 1..3 y C H W, 4..7 each input's C, 8..11 each input's first channel block
#version 450
#extension GL_GOOGLE_include_directive : require
#define IMAGE
#include "common.glsl"
NC4_IN(0, x0);
NC4_IN(1, x1);
NC4_IN(2, x2);
NC4_IN(3, x3);
NC4_OUT(4, y);

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  ivec3 gy = ivec3(pint(1), pint(2), pint(3));
  ivec4 p = pixelOf(i, gy);
  int k = p.y >= pint(11) ? 3 : p.y >= pint(10) ? 2 : p.y >= pint(9) ? 1 : 0;
  ivec3 gx = ivec3(pint(4 + k), gy.y, gy.z);
  int c4 = p.y - pint(8 + k);
  vec4 v;
  if (k == 0) v = load_x0(gx, p.x, c4, p.z, p.w);
  else if (k == 1) v = load_x1(gx, p.x, c4, p.z, p.w);
  else if (k == 2) v = load_x2(gx, p.x, c4, p.z, p.w);
  else v = load_x3(gx, p.x, c4, p.z, p.w);
  store_y(gy, p.x, p.y, p.z, p.w, v);
}
