// One 4 x 4 block of 4-byte elements transposed through SSE registers (bit moves only, so any
// 4-byte type): dst row i, column j = src row j, column i, rows `srcStride` and `dstStride`
// elements apart. The strided copies' 2-D transposes (Strides.hpp) and the GEMM's packing of
// a B stored [N, K] (Gemm.cpp) go through it.
#pragma once
#include <cstdint>

#if defined(__SSE2__)
#include <xmmintrin.h>

namespace tessera {

inline void transpose4x4(const float* src, int64_t srcStride, float* dst, int64_t dstStride) {
  __m128 r0 = _mm_loadu_ps(src), r1 = _mm_loadu_ps(src + srcStride);
  __m128 r2 = _mm_loadu_ps(src + 2 * srcStride), r3 = _mm_loadu_ps(src + 3 * srcStride);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(dst, r0);
  _mm_storeu_ps(dst + dstStride, r1);
  _mm_storeu_ps(dst + 2 * dstStride, r2);
  _mm_storeu_ps(dst + 3 * dstStride, r3);
}

}  // namespace tessera
#endif
