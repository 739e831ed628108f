#include "backends/cpu/ConvTransposeUpsample.hpp"

#include <algorithm>
#include <string>

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "tessera/ThreadPool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_UPSAMPLE_X86 1
#endif

namespace tessera {
namespace {

// What one input row's tiles need.
struct RowGeometry {
  int64_t W = 0, K = 0;        // input width, input channels
  int64_t xBlockStride = 0;    // floats between x's channel blocks
  int64_t yBlockStride = 0, OW = 0;
  int64_t units = 0, blocks = 0;  // 8-float units per input pixel (2 * blocks), output blocks
};

// Where unit (kh, block) of input pixel (ih, iw) starts in y: output row 2*ih + kh, column
// 2*iw of that block; the unit's 8 floats are kw 0 and 1 of its 4 channels.
inline float* unitOutput(const RowGeometry& g, float* y, int64_t unit, int64_t ih, int64_t iw) {
  const int64_t kh = unit / g.blocks, block = unit % g.blocks;
  return y + block * g.yBlockStride + ((2 * ih + kh) * g.OW + 2 * iw) * kChannelPack;
}

#ifdef TESSERA_UPSAMPLE_X86
#define TESSERA_UPSAMPLE_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

// One input channel's multiply-adds: x at xc (pixel r's value at xc[4 r]), its weights at wk.
template <int R, int U>
TESSERA_UPSAMPLE_INLINE void channelTimesUnits(const float* xc, const float* wk, __m256 (&acc)[R][U]) {
  __m256 xv[R];
  for (int r = 0; r < R; ++r) xv[r] = _mm256_broadcast_ss(xc + r * kChannelPack);
  for (int u = 0; u < U; ++u) {
    const __m256 wv = _mm256_loadu_ps(wk + u * 8);
    for (int r = 0; r < R; ++r) acc[r][u] = _mm256_fmadd_ps(xv[r], wv, acc[r][u]);
  }
}

// R input pixels from column iw, units u0 .. u0+U-1: acc[r][u] = bias + sum_k x(k, r) * w(k, u).
// x points at (row, iw) of channel block 0; w and bias at unit u0.
template <int R, int U>
TESSERA_UPSAMPLE_INLINE void tile(const RowGeometry& g, const float* x, const float* w, const float* bias,
                                  float* const* unitRows, int64_t iw) {
  __m256 acc[R][U];
  for (int u = 0; u < U; ++u) {
    const __m256 b = _mm256_loadu_ps(bias + u * 8);
    for (int r = 0; r < R; ++r) acc[r][u] = b;
  }
  const int64_t wStride = g.units * 8;  // floats of packed weights per input channel
  // Whole blocks of 4 channels with a fixed count (a count known only at run time had cost
  // a compare and a branch a channel), then the last block's 1-3.
  const int64_t whole = g.K / kChannelPack;
  const float* xb = x;
  const float* wk = w;
  for (int64_t b = 0; b < whole; ++b, xb += g.xBlockStride, wk += kChannelPack * wStride)
    for (int j = 0; j < kChannelPack; ++j) channelTimesUnits<R, U>(xb + j, wk + j * wStride, acc);
  for (int j = 0; j < g.K % kChannelPack; ++j) channelTimesUnits<R, U>(xb + j, wk + j * wStride, acc);
  // The R pixels' units are adjacent in y: columns 2*iw .. 2*iw + 2R - 1.
  for (int u = 0; u < U; ++u) {
    float* dst = unitRows[u] + 2 * iw * kChannelPack;
    for (int r = 0; r < R; ++r) _mm256_storeu_ps(dst + r * 8, acc[r][u]);
  }
}

// Every pixel of input row ih for units u0 .. u0+U-1 (U chosen at compile time).
template <int R, int U>
TESSERA_UPSAMPLE_INLINE void unitsOfRow(const RowGeometry& g, const float* xRow, const float* w, const float* bias,
                                        float* y, int64_t ih, int64_t u0) {
  float* unitRows[U];  // where each unit's outputs start (input column 0): no division per tile
  for (int u = 0; u < U; ++u) unitRows[u] = unitOutput(g, y, u0 + u, ih, 0);
  int64_t iw = 0;
  for (; iw + R <= g.W; iw += R) tile<R, U>(g, xRow + iw * kChannelPack, w + u0 * 8, bias + u0 * 8, unitRows, iw);
  for (; iw < g.W; ++iw) tile<1, U>(g, xRow + iw * kChannelPack, w + u0 * 8, bias + u0 * 8, unitRows, iw);
}

// The last n < U units (n known only at run time) through the instantiation for n.
template <int R, int U>
TESSERA_UPSAMPLE_INLINE void lastUnitsOfRow(int64_t n, const RowGeometry& g, const float* xRow, const float* w,
                                            const float* bias, float* y, int64_t ih, int64_t u0) {
  if constexpr (U > 0) {
    if (n == U) return unitsOfRow<R, U>(g, xRow, w, bias, y, ih, u0);
    lastUnitsOfRow<R, U - 1>(n, g, xRow, w, bias, y, ih, u0);
  }
}

template <int R, int U>
TESSERA_UPSAMPLE_INLINE void row(const RowGeometry& g, const float* xRow, const float* w, const float* bias, float* y,
                                 int64_t ih) {
  int64_t u0 = 0;
  for (; u0 + U <= g.units; u0 += U) unitsOfRow<R, U>(g, xRow, w, bias, y, ih, u0);
  if (u0 < g.units) lastUnitsOfRow<R, U - 1>(g.units - u0, g, xRow, w, bias, y, ih, u0);
}

#define TESSERA_UPSAMPLE512_INLINE __attribute__((target("avx512f,avx512vl,avx2,fma"), always_inline)) inline

// The same on 512-bit vectors, which Intel cores multiply-add at twice the 256-bit rate: a
// vector is two adjacent 8-float units (the weights' [unit][8] layout makes them 16 contiguous
// floats) of one input pixel, so each x value is broadcast once per pixel and k, as above.
// R pixels from column iw, unit pairs p0 .. p0+P-1; stored as two 8-float halves.
template <int R, int P>
TESSERA_UPSAMPLE512_INLINE void tile512(const RowGeometry& g, const float* x, const float* w, const float* bias,
                                        float* const* unitRows, int64_t iw) {
  __m512 acc[R][P];
  for (int p = 0; p < P; ++p) {
    const __m512 b = _mm512_loadu_ps(bias + p * 16);
    for (int r = 0; r < R; ++r) acc[r][p] = b;
  }
  const int64_t wStride = g.units * 8;
  for (int64_t k0 = 0; k0 < g.K; k0 += kChannelPack) {
    const float* xb = x + (k0 / kChannelPack) * g.xBlockStride;
    const int lanes = static_cast<int>(std::min<int64_t>(kChannelPack, g.K - k0));
    for (int j = 0; j < lanes; ++j) {
      // The P weight vectors stay in registers and each pixel's x value is broadcast just
      // before its P multiply-adds: 24 accumulators + 3 + 1 registers. Broadcasting all R
      // first needs 35, and GCC then kept an accumulator on the stack (a store-to-load
      // chain through every k).
      const float* wk = w + (k0 + j) * wStride;
      __m512 wv[P];
      for (int p = 0; p < P; ++p) wv[p] = _mm512_loadu_ps(wk + p * 16);
      for (int r = 0; r < R; ++r) {
        const __m512 xv = _mm512_set1_ps(xb[r * kChannelPack + j]);
        for (int p = 0; p < P; ++p) acc[r][p] = _mm512_fmadd_ps(xv, wv[p], acc[r][p]);
      }
    }
  }
  // Through the stack into the two units' rows (GCC 12 warns on the 256-bit extract).
  alignas(64) float halves[16];
  for (int p = 0; p < P; ++p)
    for (int r = 0; r < R; ++r) {
      _mm512_store_ps(halves, acc[r][p]);
      for (int h = 0; h < 2; ++h)
        _mm256_storeu_ps(unitRows[2 * p + h] + 2 * (iw + r) * kChannelPack, _mm256_load_ps(halves + 8 * h));
    }
}

// Every pixel of input row ih for unit pairs from u0 (P of them).
template <int R, int P>
TESSERA_UPSAMPLE512_INLINE void pairsOfRow(const RowGeometry& g, const float* xRow, const float* w, const float* bias,
                                           float* y, int64_t ih, int64_t u0) {
  float* unitRows[2 * P];  // where each unit's outputs start (input column 0): no division per tile
  for (int u = 0; u < 2 * P; ++u) unitRows[u] = unitOutput(g, y, u0 + u, ih, 0);
  int64_t iw = 0;
  for (; iw + R <= g.W; iw += R) tile512<R, P>(g, xRow + iw * kChannelPack, w + u0 * 8, bias + u0 * 8, unitRows, iw);
  for (; iw < g.W; ++iw) tile512<1, P>(g, xRow + iw * kChannelPack, w + u0 * 8, bias + u0 * 8, unitRows, iw);
}

// One entry per instruction set: tiles sized to its register file. AVX-512: 8 pixels x 3
// unit pairs (24 accumulators); units come in pairs (2 per output block), so a last group
// of 1 or 2 pairs takes a narrower tile.
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void rowAvx512(const RowGeometry& g, const float* xRow,
                                                                     const float* w, const float* bias, float* y,
                                                                     int64_t ih) {
  const int64_t pairs = g.units / 2;
  int64_t p0 = 0;
  for (; p0 + 3 <= pairs; p0 += 3) pairsOfRow<8, 3>(g, xRow, w, bias, y, ih, 2 * p0);
  if (pairs - p0 == 2) pairsOfRow<8, 2>(g, xRow, w, bias, y, ih, 2 * p0);
  if (pairs - p0 == 1) pairsOfRow<8, 1>(g, xRow, w, bias, y, ih, 2 * p0);
}

__attribute__((target("avx2,fma"))) void rowAvx2(const RowGeometry& g, const float* xRow, const float* w,
                                                 const float* bias, float* y, int64_t ih) {
  row<3, 4>(g, xRow, w, bias, y, ih);
}
#endif

}  // namespace

bool isUpsample2x2(const WindowGeometry& g) {
  if (g.rank != 2) return false;
  for (int d = 0; d < 2; ++d)
    if (g.kernel[d] != 2 || g.stride[d] != 2 || g.dilation[d] != 1 || g.padBegin[d] != 0 ||
        g.output[d] != 2 * g.input[d])
      return false;
  return true;
}

bool Upsample2x2Transpose::suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y) {
#ifdef TESSERA_UPSAMPLE_X86
  return cpuIsa() != CpuIsa::kGeneric && c.group == 1 && x.packed && y.packed && isUpsample2x2(c.window);
#else
  (void)c, (void)x, (void)y;
  return false;
#endif
}

void Upsample2x2Transpose::plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x,
                                const ChannelAddressing& y, const Tensor* w) {
  shape_ = c;
  xAddr_ = x;
  yAddr_ = y;
  blocks_ = channelBlocks(c.outChannels);
  const int64_t K = c.inChannels, M = c.outChannels, blocks = blocks_;
  // [k][kh][block][kw][4] from W [k][m][kh][kw].
  weights_.plan(cache, {w}, "Upsample2x2Transpose C" + std::to_string(K) + " M" + std::to_string(M),
                K * 2 * blocks * 8, [w, K, M, blocks](float* dst) {
                  const float* src = w->data<float>();
                  for (int64_t k = 0; k < K; ++k)
                    for (int64_t m = 0; m < M; ++m)
                      for (int64_t kh = 0; kh < 2; ++kh)
                        for (int64_t kw = 0; kw < 2; ++kw)
                          dst[(((k * 2 + kh) * blocks + m / 4) * 2 + kw) * 4 + m % 4] = src[((k * M + m) * 2 + kh) * 2 + kw];
                });
  bias_.assign(2 * blocks * 8, 0.f);
}

void Upsample2x2Transpose::run(ThreadPool& pool, const float* x, const float* bias, float* y,
                               const FusedActivation& act) {
#ifdef TESSERA_UPSAMPLE_X86
  const float* w = weights_.get();
  for (int64_t kh = 0; kh < 2; ++kh)
    for (int64_t m = 0; m < shape_.outChannels; ++m)
      for (int64_t kw = 0; kw < 2; ++kw)
        bias_[((kh * blocks_ + m / 4) * 2 + kw) * 4 + m % 4] = bias ? bias[m] : 0.f;
  const WindowGeometry& wg = shape_.window;
  RowGeometry g;
  g.W = wg.input[1];
  g.K = shape_.inChannels;
  g.xBlockStride = xAddr_.spatial * kChannelPack;
  g.yBlockStride = yAddr_.spatial * kChannelPack;
  g.OW = wg.output[1];
  g.blocks = blocks_;
  g.units = 2 * blocks_;
  const bool avx512 = cpuIsa() == CpuIsa::kAvx512;
  const int64_t H = wg.input[0], rows = shape_.batch * H;
  runClaimedRanges(pool, rows, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t n = r / H, ih = r % H;
      const float* xRow = x + n * xAddr_.batchStride + ih * g.W * kChannelPack;
      float* yb = y + n * yAddr_.batchStride;
      if (avx512)
        rowAvx512(g, xRow, w, bias_.data(), yb, ih);
      else
        rowAvx2(g, xRow, w, bias_.data(), yb, ih);
      if (act.kind == FusedActivation::kNone && !act.hasAffine()) continue;
      for (int64_t q = 0; q < blocks_; ++q)  // the two output rows just written, still in cache
        applyFusedActivation(act, yb + q * g.yBlockStride + 2 * ih * g.OW * kChannelPack, 2 * g.OW * kChannelPack);
    }
  });
#else
  (void)pool, (void)x, (void)bias, (void)y, (void)act;
#endif
}

}  // namespace tessera
