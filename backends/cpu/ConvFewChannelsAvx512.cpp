// FewChannelConv's rows on AVX-512 (ConvFewChannelsRow.hpp): 16 output channels are one
// 512-bit vector.
#include <algorithm>
#include <cstring>

#include "backends/cpu/ConvFewChannelsRow.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace tessera {
namespace {

constexpr int kGroup = kFewChannelGroup;  // output channels per vector
constexpr int kMaxKernelRows = kFewChannelMaxKernelRows;
// Output pixels per register tile: 12 independent accumulator chains. With 4, each chain's 27
// dependent multiply-adds (3x3 window, 3 channels) held the kernel at one FMA a cycle, half
// the core's rate (det's first conv, 1 thread: 1.11 -> 0.84 ms); 12 rather than 8 loads each
// weight vector for 12 multiply-adds instead of 8 (640x640 at 2 threads, 8 interleaved
// rounds: 0.385-0.486 ms, was 0.411-0.480); 16 measured the same as 12 and spills.
constexpr int kPixels = 12;

// The fused Relu or Clip on one accumulator, as RegisterClamp does it: max(min(v, hi), lo).
__attribute__((target("avx512f"), always_inline)) inline __m512 clamp(const FewChannelRowGeometry& g, __m512 v) {
  if (g.clamp.upper) v = _mm512_maskz_min_ps(0xFFFF, v, _mm512_set1_ps(g.clamp.hi));
  if (g.clamp.lower) v = _mm512_maskz_max_ps(0xFFFF, v, _mm512_set1_ps(g.clamp.lo));
  return v;
}

// Stores the 16 channels of `acc` (one pixel) into the `blocks` NC4HW4 blocks at y.
__attribute__((target("avx512f"))) inline void storePixel(__m512 acc, float* y, int64_t blockStride, int64_t blocks) {
  alignas(64) float v[kGroup];
  _mm512_store_ps(v, acc);
  for (int64_t q = 0; q < blocks; ++q) std::memcpy(y + q * blockStride, v + q * 4, 4 * sizeof(float));
}

// One output pixel with every bounds check (a row's edges and its last few pixels). The taps
// go round four accumulators: one chain of dependent multiply-adds held a 7x7 window's pixel
// (147 of them) at the FMA latency, and a ResNet stem row has three such pixels.
template <int C>
__attribute__((target("avx512f"))) void convPixel(const FewChannelRowGeometry& g, const float* x, const float* w, __m512 b,
                                                  float* yRow, int64_t blocks, int64_t oh, int64_t ow) {
  __m512 acc[4] = {b, _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int64_t kh = 0; kh < g.KH; ++kh) {
    const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
    if (ih < 0 || ih >= g.H) continue;
    for (int64_t kw = 0; kw < g.KW; ++kw) {
      const int64_t iw = ow * g.sw - g.pw + kw * g.dw;
      if (iw < 0 || iw >= g.W) continue;
      const float* xp = x + (ih * g.W + iw) * g.px;
      const float* wp = w + (kh * g.KW + kw) * C * kGroup;
      __m512& a = acc[kw & 3];
      for (int c = 0; c < C; ++c) a = _mm512_fmadd_ps(_mm512_set1_ps(xp[c * g.cs]), _mm512_loadu_ps(wp + c * kGroup), a);
    }
  }
  storePixel(clamp(g, _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]))), yRow + ow * 4,
             g.yBlockStride, blocks);
}

// Four pixels' accumulators (a0..a3, pixel p's blocks 0..3) into y: block q of the four
// pixels is 16 contiguous floats (maskz: the plain shuffle's undefined pass-through trips
// GCC 12's uninitialised check). The accumulators come by value: through a pointer GCC kept
// the whole tile's array on the stack, a store and a load of each accumulator per tile.
__attribute__((target("avx512f"), always_inline)) inline void storeFourPixels(__m512 a0, __m512 a1, __m512 a2, __m512 a3,
                                                                              float* y, int64_t blockStride,
                                                                              int64_t blocks) {
  const __m512 t0 = _mm512_maskz_shuffle_f32x4(0xFFFF, a0, a1, 0x44), t1 = _mm512_maskz_shuffle_f32x4(0xFFFF, a0, a1, 0xEE);
  const __m512 t2 = _mm512_maskz_shuffle_f32x4(0xFFFF, a2, a3, 0x44), t3 = _mm512_maskz_shuffle_f32x4(0xFFFF, a2, a3, 0xEE);
  _mm512_storeu_ps(y, _mm512_maskz_shuffle_f32x4(0xFFFF, t0, t2, 0x88));
  if (blocks == 4) {  // 16 or more output channels left: no tests between the stores
    _mm512_storeu_ps(y + blockStride, _mm512_maskz_shuffle_f32x4(0xFFFF, t0, t2, 0xDD));
    _mm512_storeu_ps(y + 2 * blockStride, _mm512_maskz_shuffle_f32x4(0xFFFF, t1, t3, 0x88));
    _mm512_storeu_ps(y + 3 * blockStride, _mm512_maskz_shuffle_f32x4(0xFFFF, t1, t3, 0xDD));
    return;
  }
  if (blocks > 1) _mm512_storeu_ps(y + blockStride, _mm512_maskz_shuffle_f32x4(0xFFFF, t0, t2, 0xDD));
  if (blocks > 2) _mm512_storeu_ps(y + 2 * blockStride, _mm512_maskz_shuffle_f32x4(0xFFFF, t1, t3, 0x88));
}

// The rows of x that output row oh reads (those inside x) and each one's weights.
struct WindowRows {
  int count = 0;
  const float* x[kMaxKernelRows][4];  // per input channel, at the current tile's first tap
  const float* w[kMaxKernelRows];  // [kw][C][16]
};

// a[p] += every tap of `rows` for the tile's pixel p (all its columns inside x). STEP, when
// not 0, is the distance between two pixels' inputs known at compile time, for windows KW = 3
// or 7 wide over NCHW with dilation 1 (the usual first convs): the taps unroll into
// straight-line code with constant offsets, no loop counters or address arithmetic between the
// FMAs, and GCC broadcasts an input shared by two taps once (a 7x7 stride-2 conv 3 -> 64 at
// 224x224, one thread: 1.90 -> 1.45 ms). ROWS, when not 0, is rows.count known at compile time
// (a square window's rows all inside x): the rows
// unroll too (as a loop, GCC rotated the accumulators between registers from one row to the
// next). With storeFourPixels taking its accumulators by value, det's first conv at 2
// threads went 0.62 -> 0.47 ms; the two were measured together, not apart.
template <int C, int STEP, int KW, int ROWS, int P>
__attribute__((target("avx512f"), always_inline)) inline void accumulate(const FewChannelRowGeometry& g, const WindowRows& rows,
                                                                          __m512 (&a)[P]) {
  const int64_t kwCount = STEP ? KW : g.KW;
  const int64_t step = STEP ? STEP : g.sw * g.px;
  const int64_t tap = STEP ? 1 : g.dw * g.px;
  const int rowCount = ROWS ? ROWS : rows.count;
#pragma GCC unroll 3
  for (int i = 0; i < rowCount; ++i) {
    const float* wr = rows.w[i];
    // One base pointer per channel: with STEP known, every tap and pixel is then a constant
    // displacement from it.
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      const float* xc = rows.x[i][c];
#pragma GCC unroll 7
      for (int64_t kw = 0; kw < kwCount; ++kw) {
        const __m512 wv = _mm512_loadu_ps(wr + (kw * C + c) * kGroup);
        const float* xp = xc + kw * tap;
#pragma GCC unroll 16  // all kPixels: the accumulators must stay in registers
        for (int p = 0; p < P; ++p) a[p] = _mm512_fmadd_ps(_mm512_set1_ps(xp[p * step]), wv, a[p]);
      }
    }
  }
}

// The row's tiles of kPixels pixels from `ow` (`rows` at the tile's first tap) up to owHi;
// returns where they stopped. `rows` is a copy each tile moves along; with ROWS known, every
// loop over it unrolls. (Leaving the row pointers fixed and adding each tile's offset instead
// measured slower at 2 threads: docs/PERFORMANCE.md, session 18.)
template <int C, int STEP, int KW, int ROWS>
__attribute__((target("avx512f"), always_inline)) inline int64_t convTiles(const FewChannelRowGeometry& g, WindowRows rows,
                                                                            __m512 b, float* yRow, int64_t blocks,
                                                                            int64_t ow) {
  const int rowCount = ROWS ? ROWS : rows.count;
  const int64_t advance = g.sw * g.px;
  while (ow < g.owHi) {
    // The last few pixels: one more tile ending at owHi, rewriting pixels already done with
    // the same values (the one-pixel path is a single dependent chain, several times slower).
    if (ow + kPixels > g.owHi) {
      if (g.owHi - g.owLo < kPixels) break;
#pragma GCC unroll 3
      for (int i = 0; i < rowCount; ++i)
        for (int c = 0; c < C; ++c) rows.x[i][c] -= (ow + kPixels - g.owHi) * advance;
      ow = g.owHi - kPixels;
    }
    __m512 a[kPixels];
    for (int p = 0; p < kPixels; ++p) a[p] = b;
    accumulate<C, STEP, KW, ROWS>(g, rows, a);
#pragma GCC unroll 3
    for (int i = 0; i < rowCount; ++i)
      for (int c = 0; c < C; ++c) rows.x[i][c] += kPixels * advance;
    if (g.clamp.any())
      for (int p = 0; p < kPixels; ++p) a[p] = clamp(g, a[p]);
    for (int p = 0; p < kPixels; p += 4)
      storeFourPixels(a[p], a[p + 1], a[p + 2], a[p + 3], yRow + (ow + p) * 4, g.yBlockStride, blocks);
    ow += kPixels;
  }
  return ow;
}

// Output row `oh` of channel group `g16`: x and y at their batch, w the group's [tap][C][16].
template <int C, int STEP, int KW>
__attribute__((target("avx512f"))) void convRow(const FewChannelRowGeometry& g, const float* x, const float* w,
                                                const float* bias, float* y, int64_t oh, int64_t g16) {
  const __m512 b = _mm512_loadu_ps(bias + g16 * kGroup);
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
  // The rows' pointers move with the tile (constant displacements from them in the tile;
  // offsets from fixed bases would each hold a register).
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

void fewChannelRowAvx512(const FewChannelRowGeometry& g, int64_t C, int step, const float* x, const float* w,
                         const float* bias, float* y, int64_t oh, int64_t g16) {
  if (step == 2 && g.KW == 7) rowFor<2, 7>(C, g, x, w, bias, y, oh, g16);
  else if (step == 2) rowFor<2, 3>(C, g, x, w, bias, y, oh, g16);
  else if (step == 1) rowFor<1, 3>(C, g, x, w, bias, y, oh, g16);
  else rowFor<0, 0>(C, g, x, w, bias, y, oh, g16);
}

}  // namespace tessera
#endif
