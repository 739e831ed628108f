// Pad on plain f32 buffers, rank <= 8: -DPAD_CONSTANT, -DPAD_EDGE or -DPAD_REFLECT (numpy's
// 'reflect', mirroring without repeating the edge), matching ops/Pad.cpp's padSourceIndex.
// Negative pads crop. The constant comes from `value`, or from valueBuffer[0] when given
// at run time. global: (count)
__kernel void pad(__global const float* src, __global float* dst, int count, int rank,
                  int8 outDims, int8 inDims, int8 begins, int8 inStrides,
                  __global const float* valueBuffer, float value, int valueFromBuffer) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const int od[8] = {outDims.s0, outDims.s1, outDims.s2, outDims.s3, outDims.s4, outDims.s5, outDims.s6, outDims.s7};
  const int id[8] = {inDims.s0, inDims.s1, inDims.s2, inDims.s3, inDims.s4, inDims.s5, inDims.s6, inDims.s7};
  const int bg[8] = {begins.s0, begins.s1, begins.s2, begins.s3, begins.s4, begins.s5, begins.s6, begins.s7};
  const int st[8] = {inStrides.s0, inStrides.s1, inStrides.s2, inStrides.s3, inStrides.s4, inStrides.s5, inStrides.s6, inStrides.s7};
  int rest = i;
  long off = 0;
  bool outside = false;
  for (int k = rank - 1; k >= 0; --k) {
    const int o = rest % od[k];
    rest /= od[k];
    const int n = id[k];
    int v = o - bg[k];
    if (v < 0 || v >= n) {
#if defined(PAD_EDGE)
      v = clamp(v, 0, n - 1);
#elif defined(PAD_REFLECT)
      if (n == 1) v = 0;
      while (v < 0 || v >= n) v = v < 0 ? -v : 2 * (n - 1) - v;
#else
      outside = true;
#endif
    }
    off += (long)v * st[k];
  }
  dst[i] = outside ? (valueFromBuffer ? valueBuffer[0] : value) : src[off];
}
