// variants: PLAIN, IMAGE, IMAGE_SCALAR_A, IMAGE_SCALAR_B ; precision: fp32 fp16
// Elementwise binary ops with numpy broadcasting.
// PLAIN: buffers of rank <= 6 (broadcast dims have stride 0), 4 elements an invocation.
// P: 0 count, 1 op (0 add 1 sub 2 mul 3 div 4 pow 5 max 6 min 7 prelu 8 add-then-scale
//    9 fmod),
//    2 rank, 3..8 out dims, 9..14 a strides, 15..20 b strides, 21 scale.
// IMAGE*: NC4HW4 images of one rank, broadcasting whole dimensions (a channel count of 1
// spreads over the 4 lanes), one pixel an invocation; _SCALAR_A/_B: that operand is a
// one-element buffer. P: 0 pixels, 1 op, 2..4 y C H W, 5..8 a N C H W, 9..12 b N C H W, 21 scale.
#version 450
#extension GL_GOOGLE_include_directive : require
#if defined(IMAGE_SCALAR_A) || defined(IMAGE_SCALAR_B)
#define IMAGE
#endif
#include "common.glsl"
#if defined(IMAGE_SCALAR_A)
TENSOR_IN(0, a);
#elif defined(IMAGE)
NC4_IN(0, a);
#else
TENSOR_IN(0, a);
#endif
#if defined(IMAGE_SCALAR_B)
TENSOR_IN(1, b);
#elif defined(IMAGE)
NC4_IN(1, b);
#else
TENSOR_IN(1, b);
#endif
#ifdef IMAGE
NC4_OUT(2, y);
#else
TENSOR_OUT(2, y);
#endif

float powOnnx(float x, float e) {
  if (e == 0.0) return 1.0;
  if (x == 0.0) return e > 0.0 ? 0.0 : 1.0 / 0.0;
  if (x < 0.0 && e == floor(e)) {
    float r = pow(-x, e);
    return mod(e, 2.0) == 1.0 ? -r : r;
  }
  return pow(x, e);
}

// C's fmod, exactly (the sign of the dividend u). |u| is reduced by |v| * 2^k, the largest
// such multiple not above it: the subtraction is exact (the two are within a factor of 2)
// and halves the remainder at least, so it takes at most 278 steps (the bound guards
// against a device that flushes subnormals).
float fmodExact(float u, float v) {
  float au = abs(u), av = abs(v);
  if (isnan(u) || isnan(v) || isinf(u) || av == 0.0) return uintBitsToFloat(0x7FC00000u);
  if (au < av) return u;  // an infinite v included
  int ev, er;
  frexp(av, ev);
  float r = au;
  for (int step = 0; step < 300 && r >= av; ++step) {
    frexp(r, er);
    float t = ldexp(av, er - ev);  // av's mantissa at r's exponent
    if (t > r) t = ldexp(av, er - ev - 1);
    r -= t;
  }
  return u < 0.0 ? -r : r;
}

// u / v rounded to nearest, as the CPU divides: GLSL's `/` may be off by 2.5 ulp (NVIDIA's
// is, and one ulp moved a value across Round's halfway point in ONNX's
// dynamicquantizelinear_expanded). One correction step with the exact remainder u - q v
// rounds the quotient right. The remainder needs q v exactly: GLSL's fma need not be fused
// (lavapipe's is not), so q v = p + e by Dekker's product of 12-bit halves, each step
// correctly rounded (Vulkan's add and multiply are) and kept apart by `precise`. The split
// holds for |q|, |v| < 1e30 and |u| > 1e-18 (no overflow, e not subnormal); outside that,
// and for infinities, NaN and v = 0, the plain quotient.
float divideRounded(float u, float v) {
  precise float q = u / v;
  if (isinf(q) || isnan(q) || !(abs(q) < 1e30 && abs(v) < 1e30 && abs(u) > 1e-18)) return q;
  precise float p = q * v;
  precise float tq = 4097.0 * q, tv = 4097.0 * v;
  precise float qh = tq - (tq - q), vh = tv - (tv - v);
  precise float ql = q - qh, vl = v - vh;
  precise float e = ((qh * vh - p) + qh * vl + ql * vh) + ql * vl;
  precise float r = (u - p) - e;
  precise float result = q + r / v;
  return result;
}

float combine(int op, float u, float v) {
  switch (op) {
    case 0: return u + v;
    case 1: return u - v;
    case 2: return u * v;
    case 3: return divideRounded(u, v);
    case 4: return powOnnx(u, v);
    case 5: return (isnan(u) || isnan(v)) ? u + v : max(u, v);
    case 6: return (isnan(u) || isnan(v)) ? u + v : min(u, v);
    case 7: return u < 0.0 ? u * v : u;
    case 9: return fmodExact(u, v);
    default: return (u + v) * pfloat(21);
  }
}

#ifdef IMAGE
// The grid g of the operand whose N C H W start at P[first], and the pixel q it is read
// at for output pixel p (index 0 along its broadcast dimensions).
void operand(int first, ivec4 p, out ivec3 g, out ivec4 q) {
  ivec4 d = ivec4(pint(first), pint(first + 1), pint(first + 2), pint(first + 3));
  g = d.yzw;
  q = ivec4(d.x == 1 ? 0 : p.x, d.y == 1 ? 0 : p.y, d.z == 1 ? 0 : p.z, d.w == 1 ? 0 : p.w);
}

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int op = pint(1);
  ivec3 gy = ivec3(pint(2), pint(3), pint(4)), g;
  ivec4 p = pixelOf(i, gy), q;
#ifdef IMAGE_SCALAR_A
  vec4 u = vec4(LD(a[0]));
#else
  operand(5, p, g, q);
  vec4 u = load_a(g, q.x, q.y, q.z, q.w);
  if (g.x == 1) u = u.xxxx;
#endif
#ifdef IMAGE_SCALAR_B
  vec4 v = vec4(LD(b[0]));
#else
  operand(9, p, g, q);
  vec4 v = load_b(g, q.x, q.y, q.z, q.w);
  if (g.x == 1) v = v.xxxx;
#endif
  store_y(gy, p.x, p.y, p.z, p.w,
          vec4(combine(op, u.x, v.x), combine(op, u.y, v.y), combine(op, u.z, v.z), combine(op, u.w, v.w)));
}
#else
// Four consecutive elements per invocation (fewer, fuller workgroups); P[0] counts elements.
void main() {
  uint first = gid() * 4u;
  int rank = pint(2), op = pint(1);
  for (uint e = 0u; e < 4u; ++e) {
    uint i = first + e;
    if (i >= P[0]) return;
    uint rem = i;
    int ia = 0, ib = 0;
    if (rank == 1) {  // the common coalesced case: no division
      ia = int(i) * pint(9);
      ib = int(i) * pint(15);
    } else for (int d = rank - 1; d >= 0; --d) {
      uint dim = P[3 + d];
      int c = int(rem % dim);
      rem /= dim;
      ia += c * pint(9 + d);
      ib += c * pint(15 + d);
    }
    y[i] = ST(combine(op, LD(a[ia]), LD(b[ib])));
  }
}
#endif
