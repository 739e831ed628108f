// variants: F32, I32, I64 ; precision: fp32 fp16
// OneHot (ops/OneHot.hpp): y [outer, depth, inner] = values[1] where the position along depth
// equals the index of [outer, inner], else values[0]; one output element per invocation.
// Indices are f32 (truncated toward zero; NaN and huge ones count as out of range), int32 or
// int64 (read as two 32-bit words: no 64-bit capability needed; one outside int32 is out of
// range, as depth < 2^31). A negative index counts from the end; one outside [-depth, depth)
// gives an all-off line. P: 0 count, 1 depth, 2 inner
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#if defined(F32)
TENSOR_IN(0, indices);
#elif defined(I32)
layout(std430, set = 0, binding = 0) readonly buffer Buf0 { int indices[]; };
#else
layout(std430, set = 0, binding = 0) readonly buffer Buf0 { ivec2 indices[]; };  // (low, high)
#endif
TENSOR_IN(1, values);
TENSOR_OUT(2, y);

const int kOut = -2147483647 - 1;  // out of range for every depth

int indexAt(int at) {
#if defined(F32)
  float v = LD(indices[at]);
  return isnan(v) || abs(v) >= 2147483648.0 ? kOut : int(v);
#elif defined(I32)
  return indices[at];
#else
  ivec2 w = indices[at];
  return w.y == (w.x < 0 ? -1 : 0) ? w.x : kOut;  // the high word only extends the sign
#endif
}

void main() {
  uint id = gid();
  if (id >= P[0]) return;
  int depth = pint(1), inner = pint(2);
  int i = int(id % uint(inner)), r = int(id / uint(inner));
  int d = r % depth, o = r / depth;
  int k = indexAt(o * inner + i);
  if (k < 0) k += depth;  // kOut + depth stays negative: depth < 2^31
  y[id] = ST(LD(values[k == d ? 1 : 0]));
}
