// OneHot (ops/OneHot.hpp): y [outer, depth, inner] = values[1] where the position along depth
// equals the index of [outer, inner], else values[0]. IDX is float, int or long; a float
// index truncates toward zero, NaN and huge ones count as out of range; a negative index
// counts from the end; one outside [-depth, depth) gives an all-off line. T: the values'
// element type (copied as bits). global: (inner, depth, outer)
#ifndef IDX
#define IDX long
#endif
__kernel void one_hot(__global const IDX* indices, __global const T* values, __global T* y, int outer, int depth,
                      int inner) {
  const int i = get_global_id(0), d = get_global_id(1), o = get_global_id(2);
  if (i >= inner || d >= depth || o >= outer) return;
  const IDX v = indices[(size_t)o * inner + i];
#ifdef INDEX_FLOAT
  long k = isnan(v) || fabs(v) >= 0x1p62f ? LONG_MIN : (long)v;
#else
  long k = (long)v;
#endif
  if (k < 0) k += depth;  // k >= LONG_MIN + depth: no overflow
  y[((size_t)o * depth + d) * inner + i] = values[k == d ? 1 : 0];
}
