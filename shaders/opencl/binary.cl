// Elementwise binary arithmetic (Add Sub Mul Div Pow Max Min, Sum/Mean of two) with numpy
// broadcasting, and Mod with fmod = 1 (OP_MOD: C's fmod, exact). The op is chosen with
// -DOP_<NAME>.
#include "common.h"

// a / b rounded to nearest, as the CPU divides: OpenCL's `/` may be off by 2.5 ulp (NVIDIA's
// is, and one ulp moved a value across Round's halfway point in ONNX's
// dynamicquantizelinear_expanded). The remainder a - q b is exact with fma, and one step with
// it rounds the quotient right. Infinities, NaN and b = 0 keep `/`'s result.
inline float divide_rounded(float a, float b) {
  const float q = a / b;
  if (isinf(q) || isnan(q) || b == 0.f) return q;
  return fma(fma(-q, b, a), 1.f / b, q);
}

inline float binary_op(float a, float b) {
#if defined(OP_ADD) || defined(OP_SUM)
  return a + b;
#elif defined(OP_SUB)
  return a - b;
#elif defined(OP_MUL)
  return a * b;
#elif defined(OP_DIV)
  return divide_rounded(a, b);
#elif defined(OP_POW)
  return pow(a, b);
#elif defined(OP_MAX)
  return (isnan(a) || isnan(b)) ? NAN : fmax(a, b);
#elif defined(OP_MIN)
  return (isnan(a) || isnan(b)) ? NAN : fmin(a, b);
#elif defined(OP_PRELU)
  return a < 0.f ? a * b : a;
#elif defined(OP_MOD)
  return fmod(a, b);
#elif defined(OP_MEAN)
  return (a + b) * 0.5f;
#else
  return a;
#endif
}

// global: (width, height) of dst. aDims/bDims/oDims: (N, C, H, W).
__kernel void binary_nc4(NC4_IN(src), NC4_IN(src1), NC4_OUT(dst), int4 aDims, int4 bDims,
                         int4 oDims, int width, int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int c4 = x / oDims.w, w = x - c4 * oDims.w, n = y / oDims.z, h = y - n * oDims.z;
  float4 a, b;
  {
    const int bn = aDims.x == 1 ? 0 : n, bc4 = aDims.y == 1 ? 0 : c4;
    const int bh = aDims.z == 1 ? 0 : h, bw = aDims.w == 1 ? 0 : w;
    const int bwidth = ((aDims.y + 3) / 4) * aDims.w;
    a = LOAD4(src, bc4 * aDims.w + bw, bn * aDims.z + bh, bwidth);
    if (aDims.y == 1) a = (float4)(a.x);
  }
  {
    const int bn = bDims.x == 1 ? 0 : n, bc4 = bDims.y == 1 ? 0 : c4;
    const int bh = bDims.z == 1 ? 0 : h, bw = bDims.w == 1 ? 0 : w;
    const int bwidth = ((bDims.y + 3) / 4) * bDims.w;
    b = LOAD4(src1, bc4 * bDims.w + bw, bn * bDims.z + bh, bwidth);
    if (bDims.y == 1) b = (float4)(b.x);
  }
  float4 r = (float4)(binary_op(a.x, b.x), binary_op(a.y, b.y), binary_op(a.z, b.z), binary_op(a.w, b.w));
  const int c = c4 * 4;
  if (c + 4 > oDims.y) {
    r.y = c + 1 < oDims.y ? r.y : 0.f;
    r.z = c + 2 < oDims.y ? r.z : 0.f;
    r.w = c + 3 < oDims.y ? r.w : 0.f;
  }
  STORE4(dst, x, y, width, r);
}

// Plain buffers, rank <= 8: output dims and each operand's element strides (0 where
// broadcast), innermost last. global: (count).
__kernel void binary_plain(__global const float* a, __global const float* b, __global float* out,
                           int count, int rank, int8 dims, int8 aStrides, int8 bStrides) {
  const int i = get_global_id(0);
  if (i >= count) return;
  int rest = i, ai = 0, bi = 0;
  const int d[8] = {dims.s0, dims.s1, dims.s2, dims.s3, dims.s4, dims.s5, dims.s6, dims.s7};
  const int as[8] = {aStrides.s0, aStrides.s1, aStrides.s2, aStrides.s3, aStrides.s4, aStrides.s5, aStrides.s6, aStrides.s7};
  const int bs[8] = {bStrides.s0, bStrides.s1, bStrides.s2, bStrides.s3, bStrides.s4, bStrides.s5, bStrides.s6, bStrides.s7};
  for (int k = rank - 1; k >= 0; --k) {
    const int idx = rest % d[k];
    rest /= d[k];
    ai += idx * as[k];
    bi += idx * bs[k];
  }
  out[i] = binary_op(a[ai], b[bi]);
}

// One operand a constant scalar k (no second tensor read): y = op(x, k), or op(k, x) when
// scalarFirst. NC4HW4: global (width, height); padding lanes stay zero.
__kernel void binary_scalar_nc4(NC4_IN(src), NC4_OUT(dst), int C, int W, int width, int height,
                                float k, int scalarFirst) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const float4 v = LOAD4(src, x, y, width);
  float4 r = scalarFirst ? (float4)(binary_op(k, v.x), binary_op(k, v.y), binary_op(k, v.z), binary_op(k, v.w))
                         : (float4)(binary_op(v.x, k), binary_op(v.y, k), binary_op(v.z, k), binary_op(v.w, k));
  const int c = (x / W) * 4;
  if (c + 4 > C) {
    r.y = c + 1 < C ? r.y : 0.f;
    r.z = c + 2 < C ? r.z : 0.f;
    r.w = c + 3 < C ? r.w : 0.f;
  }
  STORE4(dst, x, y, width, r);
}

// Plain buffers: global (count)
__kernel void binary_scalar_plain(__global const float* src, __global float* dst, int count, float k,
                                  int scalarFirst) {
  const int i = get_global_id(0);
  if (i >= count) return;
  dst[i] = scalarFirst ? binary_op(k, src[i]) : binary_op(src[i], k);
}
