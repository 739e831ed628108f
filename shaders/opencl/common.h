// Shared by every Tessera OpenCL kernel: precision types, the NC4HW4 load/store layer
// (nc4.h) and the defaults and helpers the built-in kernels rely on.
#ifndef FLOAT
#define FLOAT float
#endif
#define FLOAT4 float4  // arithmetic is fp32; fp16 (when used) is a storage format of images

#include "nc4.h"

// NC4HW4 arguments are named src, src1, src2 (inputs) and dst (output). A program holds
// several kernels, built with the options of the one in use: names it does not set
// default to images so the others still compile.
#ifndef src_STORAGE
#define src_STORAGE IMAGE
#endif
#ifndef src1_STORAGE
#define src1_STORAGE IMAGE
#endif
#ifndef src2_STORAGE
#define src2_STORAGE IMAGE
#endif
#ifndef dst_STORAGE
#define dst_STORAGE IMAGE
#endif

// Fused activation, chosen with -DACTIVATION=<code> (FusedActivation::Kind, see
// ops/FusedActivation.hpp; 0: none) and its parameters -DACT_A=<float> -DACT_B=<float>.
#ifndef ACTIVATION
#define ACTIVATION 0
#endif
#ifndef ACT_A
#define ACT_A 0.f
#endif
#ifndef ACT_B
#define ACT_B 0.f
#endif
// Activation `code` (FusedActivation::Kind) with parameters a, b; a kernel with two
// activations (squeeze_excite.cl) passes them at run time, the others through activate4.
inline float4 activate_code4(int code, float4 v, float a, float b) {
  if (code == 1) return fmax(v, (float4)(0.f));
  if (code == 2) return clamp(v, (float4)(a), (float4)(b));
  if (code == 3) return select(v * a, v, v >= (float4)(0.f));
  if (code == 4) return 1.f / (1.f + exp(-v));
  if (code == 5) return clamp(a * v + b, 0.f, 1.f);
  if (code == 6) return v * clamp(v / 6.f + 0.5f, 0.f, 1.f);
  if (code == 7) return v / (1.f + exp(-a * v));
  if (code == 8) return 0.5f * v * (1.f + erf(v * 0.70710678f));
  if (code == 9) return 0.5f * v * (1.f + tanh((v + 0.044715f * v * v * v) * 0.7978845608f));
  return v;
}
// The build's fused activation: its constants fold the choice away.
inline float4 activate4(float4 v) { return activate_code4(ACTIVATION, v, ACT_A, ACT_B); }

// The lane `i` (0..3) of a vector.
inline float lane4(float4 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
