// variants: PLAIN, IMAGE ; precision: fp32 fp16
// Elementwise unary ops and activations; the op code is UnaryKind's value (ops/Unary.hpp),
// 100 is Clip. PLAIN: any tensor in a buffer, 4 elements an invocation; IMAGE: an NC4HW4
// image, 1 pixel (4 channels) an invocation.
// P: 0 count (elements or pixels), 1 op, 2 alpha, 3 beta, 4 gamma, 5..7 C H W (IMAGE)
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#ifdef IMAGE
NC4_IN(0, x);
NC4_OUT(1, y);
#else
TENSOR_IN(0, x);
TENSOR_OUT(1, y);
#endif

float apply(int op, float v, float a, float b, float g) {
  switch (op) {
    case 0: return abs(v);
    case 1: return -v;
    case 2: return 1.0 / v;
    case 3: return floor(v);
    case 4: return ceil(v);
    case 5: return roundEven(v);
    case 6: return sqrt(v);
    case 7: return exp(v);
    case 8: return log(v);
    case 9: return sin(v);
    case 10: return cos(v);
    case 11: return tan(v);
    case 12: return erfApprox(v);
    case 13: return sign(v);
    case 14: { float e = exp(-2.0 * abs(v)); return sign(v) * (1.0 - e) / (1.0 + e); }
    case 15: return v >= 0.0 ? 1.0 / (1.0 + exp(-v)) : exp(v) / (1.0 + exp(v));
    case 16: return max(v, 0.0);
    case 17: return v >= 0.0 ? v : a * v;
    case 18: return v >= 0.0 ? v : a * (exp(v) - 1.0);
    case 19: return g * (v > 0.0 ? v : a * (exp(v) - 1.0));
    case 20: return max(0.0, v) + min(0.0, a * (exp(v / a) - 1.0));
    case 21: return v > 0.0 ? v + log(1.0 + exp(-v)) : log(1.0 + exp(v));
    case 22: return v / (1.0 + abs(v));
    case 23: return v > a ? v : 0.0;
    case 24: return max(0.0, min(1.0, a * v + b));
    case 25: return v * max(0.0, min(1.0, v / 6.0 + 0.5));
    // 26 is Identity (the default)
    // acos and asin through two-argument atan: drivers' own asin/acos (lavapipe's) are off
    // by ~2e-4, atan is not. Outside [-1, 1] both are NaN, as on the CPU.
    case 27: return abs(v) > 1.0 ? uintBitsToFloat(0x7FC00000u) : atan(sqrt(1.0 - v * v), v);
    case 28: return abs(v) > 1.0 ? uintBitsToFloat(0x7FC00000u) : atan(v, sqrt(1.0 - v * v));
    case 29: return atan(v);
    case 30: return acosh(v);
    case 31: return asinh(v);
    case 32: return atanh(v);
    case 33: return cosh(v);
    case 34: return sinh(v);
    case 35: return v < -a ? v + b : (v > a ? v - b : 0.0);
    case 100: return min(max(v, a), b);
    default: return v;
  }
}

#ifdef IMAGE
void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int op = pint(1);
  float a = pfloat(2), b = pfloat(3), g = pfloat(4);
  ivec3 grid = ivec3(pint(5), pint(6), pint(7));
  ivec4 p = pixelOf(i, grid);
  vec4 v = load_x(grid, p.x, p.y, p.z, p.w);
  vec4 r = vec4(apply(op, v.x, a, b, g), apply(op, v.y, a, b, g), apply(op, v.z, a, b, g), apply(op, v.w, a, b, g));
  store_y(grid, p.x, p.y, p.z, p.w, r);
}
#else
// Four consecutive elements per invocation; P[0] counts elements.
void main() {
  uint first = gid() * 4u;
  int op = pint(1);
  float a = pfloat(2), b = pfloat(3), g = pfloat(4);
  for (uint e = 0u; e < 4u; ++e) {
    uint i = first + e;
    if (i >= P[0]) return;
    y[i] = ST(apply(op, LD(x[i]), a, b, g));
  }
}
#endif
