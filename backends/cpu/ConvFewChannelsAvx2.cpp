// FewChannelConv's rows on AVX2 + FMA (ConvFewChannelsRow.hpp). 16 output channels are two
// 256-bit vectors (lo: channels 0-7, hi: 8-15), so a pixel holds two accumulators, and each
// broadcast input value feeds two multiply-adds. Stores pair the pixels up: block q of two
// adjacent pixels is 8 contiguous floats of y.
#include <algorithm>

#include "backends/cpu/ConvFewChannelsRow.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TESSERA_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

namespace tessera {
namespace {

constexpr int kGroup = kFewChannelGroup;
// Output pixels a tile: 8 accumulators. Six (12 of the 16 registers, with the two weight
// vectors and the broadcast 15) spilled under GCC 12's scheduling and ran at 45 GFLOP/s on
// one thread, four at 80 (3->16 s2 at 160x160, in L2; five: 28, the tile left registers).
constexpr int kPixels = 4;

// One pixel's 16 channels into its `blocks` NC4HW4 blocks at y.
TESSERA_AVX2_INLINE void storePixel(__m256 lo, __m256 hi, float* y, int64_t blockStride, int64_t blocks) {
  _mm_storeu_ps(y, _mm256_castps256_ps128(lo));
  if (blocks > 1) _mm_storeu_ps(y + blockStride, _mm256_extractf128_ps(lo, 1));
  if (blocks > 2) _mm_storeu_ps(y + 2 * blockStride, _mm256_castps256_ps128(hi));
  if (blocks > 3) _mm_storeu_ps(y + 3 * blockStride, _mm256_extractf128_ps(hi, 1));
}

// Two adjacent pixels (0 then 1) into their blocks: each block's 4 channels of pixel 0, then
// of pixel 1.
TESSERA_AVX2_INLINE void storeTwoPixels(__m256 lo0, __m256 hi0, __m256 lo1, __m256 hi1, float* y,
                                        int64_t blockStride, int64_t blocks) {
  _mm256_storeu_ps(y, _mm256_permute2f128_ps(lo0, lo1, 0x20));
  if (blocks == 4) {  // 16 or more output channels left: no tests between the stores
    _mm256_storeu_ps(y + blockStride, _mm256_permute2f128_ps(lo0, lo1, 0x31));
    _mm256_storeu_ps(y + 2 * blockStride, _mm256_permute2f128_ps(hi0, hi1, 0x20));
    _mm256_storeu_ps(y + 3 * blockStride, _mm256_permute2f128_ps(hi0, hi1, 0x31));
    return;
  }
  if (blocks > 1) _mm256_storeu_ps(y + blockStride, _mm256_permute2f128_ps(lo0, lo1, 0x31));
  if (blocks > 2) _mm256_storeu_ps(y + 2 * blockStride, _mm256_permute2f128_ps(hi0, hi1, 0x20));
}

// The fused Relu or Clip on one accumulator, as RegisterClamp does it: max(min(v, hi), lo).
TESSERA_AVX2_INLINE __m256 clamp(const FewChannelRowGeometry& g, __m256 v) {
  if (g.clamp.upper) v = _mm256_min_ps(v, _mm256_set1_ps(g.clamp.hi));
  if (g.clamp.lower) v = _mm256_max_ps(v, _mm256_set1_ps(g.clamp.lo));
  return v;
}

// One output pixel with every bounds check (a row's padded ends, and rows too short for a
// tile).
template <int C>
__attribute__((target("avx2,fma"))) void convPixel(const FewChannelRowGeometry& g, const float* x, const float* w,
                                                   const float* bias, float* yRow, int64_t blocks, int64_t oh,
                                                   int64_t ow) {
  __m256 lo = _mm256_loadu_ps(bias), hi = _mm256_loadu_ps(bias + 8);
  for (int64_t kh = 0; kh < g.KH; ++kh) {
    const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
    if (ih < 0 || ih >= g.H) continue;
    for (int64_t kw = 0; kw < g.KW; ++kw) {
      const int64_t iw = ow * g.sw - g.pw + kw * g.dw;
      if (iw < 0 || iw >= g.W) continue;
      const float* xp = x + (ih * g.W + iw) * g.px;
      const float* wp = w + (kh * g.KW + kw) * C * kGroup;
      for (int c = 0; c < C; ++c) {
        const __m256 s = _mm256_set1_ps(xp[c * g.cs]);
        lo = _mm256_fmadd_ps(s, _mm256_loadu_ps(wp + c * kGroup), lo);
        hi = _mm256_fmadd_ps(s, _mm256_loadu_ps(wp + c * kGroup + 8), hi);
      }
    }
  }
  storePixel(clamp(g, lo), clamp(g, hi), yRow + ow * 4, g.yBlockStride, blocks);
}

// The rows of x that an output row reads (those inside x), per input channel at the current
// tile's first tap, and each one's weights [kw][C][16].
struct WindowRows {
  int count = 0;
  const float* x[kFewChannelMaxKernelRows][4];
  const float* w[kFewChannelMaxKernelRows];
};

// The tile's accumulators += every tap of `rows`. STEP (1 or 2), when known, is the distance
// between two pixels' inputs (windows KW = 3 or 7 wide over NCHW without dilation) and ROWS
// (KW) the row count: then every tap is a constant displacement from its channel's row
// pointer.
template <int C, int STEP, int KW, int ROWS>
TESSERA_AVX2_INLINE void accumulate(const FewChannelRowGeometry& g, const WindowRows& rows, __m256 (&lo)[kPixels],
                                    __m256 (&hi)[kPixels]) {
  const int64_t kwCount = STEP ? KW : g.KW;
  const int64_t step = STEP ? STEP : g.sw * g.px;
  const int64_t tap = STEP ? 1 : g.dw * g.px;
  const int rowCount = ROWS ? ROWS : rows.count;
#pragma GCC unroll 3
  for (int i = 0; i < rowCount; ++i) {
    const float* wr = rows.w[i];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const float* xc = rows.x[i][c];
#pragma GCC unroll 7
      for (int64_t kw = 0; kw < kwCount; ++kw) {
        const __m256 w0 = _mm256_loadu_ps(wr + (kw * C + c) * kGroup);
        const __m256 w1 = _mm256_loadu_ps(wr + (kw * C + c) * kGroup + 8);
        const float* xp = xc + kw * tap;
#pragma GCC unroll 4  // all kPixels: the accumulators must stay in registers
        for (int p = 0; p < kPixels; ++p) {
          const __m256 s = _mm256_broadcast_ss(xp + p * step);
          lo[p] = _mm256_fmadd_ps(s, w0, lo[p]);
          hi[p] = _mm256_fmadd_ps(s, w1, hi[p]);
        }
      }
    }
  }
}

// The row's tiles from `ow` (`rows` at the tile's first tap) up to owHi; returns where they
// stopped. A row's last pixels are one more tile ending at owHi, redoing a few pixels with the
// same values (one pixel at a time is a single dependent chain, several times slower).
template <int C, int STEP, int KW, int ROWS>
TESSERA_AVX2_INLINE int64_t convTiles(const FewChannelRowGeometry& g, WindowRows rows, const float* bias,
                                      float* yRow, int64_t blocks, int64_t ow) {
  const int rowCount = ROWS ? ROWS : rows.count;
  const int64_t advance = g.sw * g.px;
  const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
  while (ow < g.owHi) {
    if (ow + kPixels > g.owHi) {
      if (g.owHi - g.owLo < kPixels) break;
      for (int i = 0; i < rowCount; ++i)
        for (int c = 0; c < C; ++c) rows.x[i][c] -= (ow + kPixels - g.owHi) * advance;
      ow = g.owHi - kPixels;
    }
    __m256 lo[kPixels], hi[kPixels];
    for (int p = 0; p < kPixels; ++p) lo[p] = b0, hi[p] = b1;
    accumulate<C, STEP, KW, ROWS>(g, rows, lo, hi);
    for (int i = 0; i < rowCount; ++i)
      for (int c = 0; c < C; ++c) rows.x[i][c] += kPixels * advance;
    if (g.clamp.any())
      for (int p = 0; p < kPixels; ++p) lo[p] = clamp(g, lo[p]), hi[p] = clamp(g, hi[p]);
    for (int p = 0; p < kPixels; p += 2)
      storeTwoPixels(lo[p], hi[p], lo[p + 1], hi[p + 1], yRow + (ow + p) * 4, g.yBlockStride, blocks);
    ow += kPixels;
  }
  return ow;
}

template <int C, int STEP, int KW>
__attribute__((target("avx2,fma"))) void convRow(const FewChannelRowGeometry& g, const float* x, const float* w,
                                                 const float* bias, float* y, int64_t oh, int64_t g16) {
  const float* b = bias + g16 * kGroup;
  const int64_t blocks = std::min<int64_t>(4, g.outBlocks - g16 * 4);
  float* yRow = y + g16 * 4 * g.yBlockStride + oh * g.OW * 4;
  WindowRows rows;
  for (int64_t kh = 0; kh < g.KH; ++kh) {
    const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
    if (ih < 0 || ih >= g.H) continue;
    for (int c = 0; c < C; ++c) rows.x[rows.count][c] = x + ih * g.W * g.px + c * g.cs;
    rows.w[rows.count++] = w + kh * g.KW * C * kGroup;
  }
  int64_t ow = 0;
  for (; ow < g.owLo; ++ow) convPixel<C>(g, x, w, b, yRow, blocks, oh, ow);
  for (int i = 0; i < rows.count; ++i)
    for (int c = 0; c < C; ++c) rows.x[i][c] += (ow * g.sw - g.pw) * g.px;
  if (STEP && rows.count == KW)  // a square window's rows all inside x: most rows of an image
    ow = convTiles<C, STEP, KW, KW>(g, rows, b, yRow, blocks, ow);
  else
    ow = convTiles<C, STEP, KW, 0>(g, rows, b, yRow, blocks, ow);
  for (; ow < g.OW; ++ow) convPixel<C>(g, x, w, b, yRow, blocks, oh, ow);
}

template <int STEP, int KW>
void rowFor(int64_t C, const FewChannelRowGeometry& g, const float* x, const float* w, const float* bias, float* y,
            int64_t oh, int64_t g16) {
  switch (C) {
    case 1: convRow<1, STEP, KW>(g, x, w, bias, y, oh, g16); break;
    case 2: convRow<2, STEP, KW>(g, x, w, bias, y, oh, g16); break;
    case 3: convRow<3, STEP, KW>(g, x, w, bias, y, oh, g16); break;
    default: convRow<4, STEP, KW>(g, x, w, bias, y, oh, g16); break;
  }
}

}  // namespace

void fewChannelRowAvx2(const FewChannelRowGeometry& g, int64_t C, int step, const float* x, const float* w,
                       const float* bias, float* y, int64_t oh, int64_t g16) {
  if (step == 2 && g.KW == 7) rowFor<2, 7>(C, g, x, w, bias, y, oh, g16);
  else if (step == 2) rowFor<2, 3>(C, g, x, w, bias, y, oh, g16);
  else if (step == 1) rowFor<1, 3>(C, g, x, w, bias, y, oh, g16);
  else rowFor<0, 0>(C, g, x, w, bias, y, oh, g16);
}

}  // namespace tessera
#endif
