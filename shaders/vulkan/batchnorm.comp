// variants: FOLDED, FULL, FOLDED_IMAGE ; precision: fp32 fp16
// Inference BatchNormalization per channel: y = x * k[c] + b[c]. FOLDED reads k and b from
// an fp32 table computed on the host from constant parameters (variances can exceed the
// fp16 range); FULL computes them from the four parameter tensors. FOLDED_IMAGE is FOLDED
// on an NC4HW4 image, one pixel (4 channels) an invocation.
// P: 0 count (elements; pixels for FOLDED_IMAGE), 1 C, 2 spatial, 3 epsilon, 4..5 H W
#version 450
#extension GL_GOOGLE_include_directive : require
#ifdef FOLDED_IMAGE
#define IMAGE
#define FOLDED
#endif
#include "common.glsl"
#ifdef IMAGE
NC4_IN(0, x);
#else
TENSOR_IN(0, x);
#endif
#ifdef IMAGE
F32_IN(1, table);
NC4_OUT(2, y);
#elif defined(FOLDED)
F32_IN(1, table);
TENSOR_OUT(2, y);
#else
TENSOR_IN(1, scale);
TENSOR_IN(2, bias);
TENSOR_IN(3, mean);
TENSOR_IN(4, variance);
TENSOR_OUT(5, y);
#endif

void main() {
  uint i = gid();
  if (i >= P[0]) return;
#ifdef IMAGE
  ivec3 g = ivec3(pint(1), pint(4), pint(5));
  ivec4 p = pixelOf(i, g);
  vec4 k = vec4(0.0), b = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    int c = min(p.y * 4 + j, g.x - 1);  // lanes past C are zeroed by the store
    k[j] = table[2 * c];
    b[j] = table[2 * c + 1];
  }
  store_y(g, p.x, p.y, p.z, p.w, load_x(g, p.x, p.y, p.z, p.w) * k + b);
#elif defined(FOLDED)
  int c = int((i / P[2]) % P[1]);
  y[i] = ST(LD(x[i]) * table[2 * c] + table[2 * c + 1]);
#else
  int c = int((i / P[2]) % P[1]);
  float k = LD(scale[c]) / sqrt(LD(variance[c]) + pfloat(3));
  y[i] = ST((LD(x[i]) - LD(mean[c])) * k + LD(bias[c]));
#endif
}
