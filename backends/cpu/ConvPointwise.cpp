#include "backends/cpu/ConvPointwise.hpp"

#include <algorithm>
#include <string>

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/FmaInPlace.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "tessera/ThreadPool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_POINTWISE_X86 1
#endif

namespace tessera {
namespace {

// Since the GEMM packs A (a product wider than 32 columns runs at ~95% of a core's peak), this
// kernel wins only where the GEMM is weak: up to 24 input channels (a short K), or at most 32
// output channels (where the GEMM reads A in place). One thread, PP-OCRv4 det 320 / rec,
// ms here vs on the GEMM: 12 -> 96 0.29 vs 0.36, 18 -> 96 0.070 vs 0.123, 48 -> 12 0.123 vs
// 0.148, 16 -> 32 0.085 vs 0.110; but 32 -> 48 0.36 vs 0.29, 48 -> 48 0.64 vs 0.38, 48 -> 96
// 0.30 vs 0.18, 64 -> 128 0.79 vs 0.32. The choice depends on the channels alone, never on
// the input's size, so every plan of a Session shares one packing of the weights (on one
// pixel, as in squeeze-excitation blocks, the GEMM would be 3 us faster: 0.002 vs 0.005 ms).
constexpr int64_t kMaxInputChannels = 64;  // a pass's weights (C x 8 blocks x 64 bytes) stay in L1
constexpr int64_t kMaxShortK = 24;
constexpr int64_t kMaxNarrowN = 32;
constexpr int kMaxBlocksPerPass = 8;      // output blocks per pass: 2 x 8 accumulators
constexpr int kMaxBlocksPerPassAvx2 = 5;  // 2 x 5 of 16 registers
constexpr int64_t kVector = 16;       // floats per vector: 4 pixels x 4 channels
constexpr int64_t kPixelStep = 8;     // pixels per pass: two vectors
constexpr int64_t kMaxChunk = 128;    // pixels per task at most

struct Geometry {
  int64_t inBlocks, outBlocks, xBlockStride, yBlockStride;
  int padChannels;  // in x's last block: 0-3
};

#ifdef TESSERA_POINTWISE_X86
// acc0/acc1 (4 pixels each) += channel L of the input block (x0/x1: 4 pixels x 4 channels)
// times its weights for output blocks 0..B-1.
template <int L, int B>
__attribute__((target("avx512f"), always_inline)) inline void channelTimesBlocks(__m512 x0, __m512 x1, const float* w,
                                                                               int64_t outBlocks, __m512 (&a0)[B],
                                                                               __m512 (&a1)[B]) {
  // (maskz: the plain permute's undefined pass-through trips GCC 12's uninitialised check)
  const __m512 v0 = _mm512_maskz_permute_ps(0xFFFF, x0, L * 0x55), v1 = _mm512_maskz_permute_ps(0xFFFF, x1, L * 0x55);
  const float* wl = w + L * outBlocks * kVector;
#pragma GCC unroll 8
  for (int j = 0; j < B; ++j) {
    const __m512 wv = _mm512_loadu_ps(wl + j * kVector);
    a0[j] = _mm512_fmadd_ps(v0, wv, a0[j]);
    a1[j] = _mm512_fmadd_ps(v1, wv, a1[j]);
  }
}

// Output blocks mb0 .. mb0+B-1 at the `valid` (1..8) pixels from p.
template <int B>
__attribute__((target("avx512f"))) void pixelsTimesBlocks(const Geometry& g, const float* x, const float* w,
                                                          const float* bias, float* y, int64_t p, int64_t mb0,
                                                          int valid, const RegisterClamp& clamp) {
  const __mmask16 m0 = valid >= 4 ? 0xFFFF : static_cast<__mmask16>((1u << (4 * valid)) - 1);
  const __mmask16 m1 = valid >= 8 ? 0xFFFF : valid <= 4 ? 0 : static_cast<__mmask16>((1u << (4 * (valid - 4))) - 1);
  // Every loop over the accumulators is unrolled: one indexed at run time would keep them in
  // memory.
  __m512 a0[B], a1[B];
#pragma GCC unroll 8
  for (int j = 0; j < B; ++j) a0[j] = a1[j] = _mm512_loadu_ps(bias + (mb0 + j) * kVector);
  const float* xp = x + p * 4;
  const float* wb = w + mb0 * kVector;
  // Every input block alike (a branch in this loop would send the accumulators through
  // memory): the last block's padding channels are masked to 0 at the load (they may hold
  // anything, even Inf) and have zero weights.
  const __mmask16 lastChannels = static_cast<__mmask16>(((1u << (4 - g.padChannels)) - 1) * 0x1111u);
  for (int64_t cb = 0; cb < g.inBlocks; ++cb, xp += g.xBlockStride, wb += 4 * g.outBlocks * kVector) {
    const __mmask16 c = cb + 1 < g.inBlocks ? 0xFFFF : lastChannels;
    const __m512 x0 = _mm512_maskz_loadu_ps(m0 & c, xp), x1 = _mm512_maskz_loadu_ps(m1 & c, xp + kVector);
    channelTimesBlocks<0, B>(x0, x1, wb, g.outBlocks, a0, a1);
    channelTimesBlocks<1, B>(x0, x1, wb, g.outBlocks, a0, a1);
    channelTimesBlocks<2, B>(x0, x1, wb, g.outBlocks, a0, a1);
    channelTimesBlocks<3, B>(x0, x1, wb, g.outBlocks, a0, a1);
  }
  float* yp = y + mb0 * g.yBlockStride + p * 4;
  const __m512 lo = _mm512_set1_ps(clamp.lo), hi = _mm512_set1_ps(clamp.hi);
#pragma GCC unroll 8
  for (int j = 0; j < B; ++j, yp += g.yBlockStride) {
    if (clamp.upper) a0[j] = _mm512_maskz_min_ps(0xFFFF, a0[j], hi), a1[j] = _mm512_maskz_min_ps(0xFFFF, a1[j], hi);
    if (clamp.lower) a0[j] = _mm512_maskz_max_ps(0xFFFF, a0[j], lo), a1[j] = _mm512_maskz_max_ps(0xFFFF, a1[j], lo);
    _mm512_mask_storeu_ps(yp, m0, a0[j]);
    _mm512_mask_storeu_ps(yp + kVector, m1, a1[j]);
  }
}

// AVX2: a vector is 2 pixels x 4 channels, the first 8 floats of the packed weights and bias
// (their 4 repeats serve 2 here); 4 pixels a step, at most 5 output blocks a pass (10
// accumulators, the input, its two spread channels and a weight fill the 16 registers).
template <int L, int B>
__attribute__((target("avx2,fma"), always_inline)) inline void channelTimesBlocksAvx2(__m256 x0, __m256 x1,
                                                                                    const float* w,
                                                                                    int64_t outBlocks,
                                                                                    __m256 (&a0)[B],
                                                                                    __m256 (&a1)[B]) {
  const __m256 v0 = _mm256_permute_ps(x0, L * 0x55), v1 = _mm256_permute_ps(x1, L * 0x55);
  const float* wl = w + L * outBlocks * kVector;
#pragma GCC unroll 8
  for (int j = 0; j < B; ++j) {
    const __m256 wv = _mm256_loadu_ps(wl + j * kVector);
    fmaAvx2(a0[j], v0, wv);
    fmaAvx2(a1[j], v1, wv);
  }
}

// Lanes of a 2-pixel vector: pixel (lane / 4) of the pair starting at `first` is below
// `valid`, and channel (lane % 4) below `channels`; all ones where true.
__attribute__((target("avx2"))) inline __m256i laneMask(int first, int valid, int channels) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i pixel = _mm256_add_epi32(_mm256_srli_epi32(lane, 2), _mm256_set1_epi32(first));
  const __m256i channel = _mm256_and_si256(lane, _mm256_set1_epi32(3));
  return _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(valid), pixel),
                          _mm256_cmpgt_epi32(_mm256_set1_epi32(channels), channel));
}

// Output blocks mb0 .. mb0+B-1 at the `valid` (1..4) pixels from p. kFull (valid == 4): plain
// stores, since on AMD's Zen 2 and 3 a masked 256-bit store costs ~15 cycles against one (in
// this kernel, 10 of them a step against 80 cycles of multiply-adds).
template <int B, bool kFull>
__attribute__((target("avx2,fma"), always_inline)) inline void pixelsTimesBlocksAvx2(
    const Geometry& g, const float* x, const float* w, const float* bias, float* y, int64_t p, int64_t mb0, int valid,
    const RegisterClamp& clamp) {
  const __m256i m0 = laneMask(0, valid, 4), m1 = laneMask(2, valid, 4);
  const int lastChannels = 4 - g.padChannels;
  const __m256i c0 = laneMask(0, valid, lastChannels), c1 = laneMask(2, valid, lastChannels);
  __m256 a0[B], a1[B];
#pragma GCC unroll 8
  for (int j = 0; j < B; ++j) a0[j] = a1[j] = _mm256_loadu_ps(bias + (mb0 + j) * kVector);
  const float* xp = x + p * 4;
  const float* wb = w + mb0 * kVector;
  // As on AVX-512: every block alike, the last one's padding channels loaded as 0.
  for (int64_t cb = 0; cb < g.inBlocks; ++cb, xp += g.xBlockStride, wb += 4 * g.outBlocks * kVector) {
    const bool last = cb + 1 == g.inBlocks;
    // Plain loads where every lane is wanted (a whole step, a block of 4 channels).
    const bool whole = kFull && !(last && g.padChannels);
    const __m256 x0 = whole ? _mm256_loadu_ps(xp) : _mm256_maskload_ps(xp, last ? c0 : m0);
    const __m256 x1 = whole ? _mm256_loadu_ps(xp + 8) : _mm256_maskload_ps(xp + 8, last ? c1 : m1);
    channelTimesBlocksAvx2<0, B>(x0, x1, wb, g.outBlocks, a0, a1);
    channelTimesBlocksAvx2<1, B>(x0, x1, wb, g.outBlocks, a0, a1);
    channelTimesBlocksAvx2<2, B>(x0, x1, wb, g.outBlocks, a0, a1);
    channelTimesBlocksAvx2<3, B>(x0, x1, wb, g.outBlocks, a0, a1);
  }
  float* yp = y + mb0 * g.yBlockStride + p * 4;
  const __m256 lo = _mm256_set1_ps(clamp.lo), hi = _mm256_set1_ps(clamp.hi);
#pragma GCC unroll 8
  for (int j = 0; j < B; ++j, yp += g.yBlockStride) {
    if (clamp.upper) a0[j] = _mm256_min_ps(a0[j], hi), a1[j] = _mm256_min_ps(a1[j], hi);
    if (clamp.lower) a0[j] = _mm256_max_ps(a0[j], lo), a1[j] = _mm256_max_ps(a1[j], lo);
    if constexpr (kFull) {
      _mm256_storeu_ps(yp, a0[j]);
      _mm256_storeu_ps(yp + 8, a1[j]);
    } else {
      _mm256_maskstore_ps(yp, m0, a0[j]);
      _mm256_maskstore_ps(yp + 8, m1, a1[j]);
    }
  }
}

// Pixels [p0, p1) of one pass in 4-pixel steps, one call for the whole run of them: called
// step by step, the masks and the call cost as much as a 16-channel step's multiply-adds
// (UltraFace's 16 -> 32 at 320x240 ran at 30% of a core's peak).
template <int B>
__attribute__((target("avx2,fma"))) void pixelRunAvx2(const Geometry& g, const float* x, const float* w,
                                                      const float* bias, float* y, int64_t p0, int64_t p1, int64_t mb0,
                                                      const RegisterClamp& clamp) {
  int64_t p = p0;
  for (; p + 4 <= p1; p += 4) pixelsTimesBlocksAvx2<B, true>(g, x, w, bias, y, p, mb0, 4, clamp);
  if (p < p1) pixelsTimesBlocksAvx2<B, false>(g, x, w, bias, y, p, mb0, static_cast<int>(p1 - p), clamp);
}

void pixelRunAvx2For(int blocks, const Geometry& g, const float* x, const float* w, const float* bias, float* y,
                     int64_t p0, int64_t p1, int64_t mb0, const RegisterClamp& clamp) {
  switch (blocks) {
    case 1: return pixelRunAvx2<1>(g, x, w, bias, y, p0, p1, mb0, clamp);
    case 2: return pixelRunAvx2<2>(g, x, w, bias, y, p0, p1, mb0, clamp);
    case 3: return pixelRunAvx2<3>(g, x, w, bias, y, p0, p1, mb0, clamp);
    case 4: return pixelRunAvx2<4>(g, x, w, bias, y, p0, p1, mb0, clamp);
    default: return pixelRunAvx2<5>(g, x, w, bias, y, p0, p1, mb0, clamp);
  }
}

// One pass of the AVX-512 kernel: `blocks` output blocks at the `valid` (1..kPixelStep)
// pixels from p, `clamp` applied before the stores.
void blocksAt(int blocks, const Geometry& g, const float* x, const float* w, const float* bias, float* y, int64_t p,
              int64_t mb0, int valid, const RegisterClamp& clamp) {
  switch (blocks) {
    case 1: return pixelsTimesBlocks<1>(g, x, w, bias, y, p, mb0, valid, clamp);
    case 2: return pixelsTimesBlocks<2>(g, x, w, bias, y, p, mb0, valid, clamp);
    case 3: return pixelsTimesBlocks<3>(g, x, w, bias, y, p, mb0, valid, clamp);
    case 4: return pixelsTimesBlocks<4>(g, x, w, bias, y, p, mb0, valid, clamp);
    case 5: return pixelsTimesBlocks<5>(g, x, w, bias, y, p, mb0, valid, clamp);
    case 6: return pixelsTimesBlocks<6>(g, x, w, bias, y, p, mb0, valid, clamp);
    case 7: return pixelsTimesBlocks<7>(g, x, w, bias, y, p, mb0, valid, clamp);
    default: return pixelsTimesBlocks<8>(g, x, w, bias, y, p, mb0, valid, clamp);
  }
}
#endif

}  // namespace

bool PointwiseConv::suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y) {
#ifdef TESSERA_POINTWISE_X86
  if (cpuIsa() == CpuIsa::kGeneric || !x.packed || !y.packed || c.group != 1) return false;
  const WindowGeometry& g = c.window;
  for (int d = 0; d < g.rank; ++d)
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.padBegin[d] != 0 || g.padEnd[d] != 0) return false;
  return c.inChannels <= kMaxInputChannels && (c.inChannels <= kMaxShortK || c.outChannels <= kMaxNarrowN);
#else
  (void)c, (void)x, (void)y;
  return false;
#endif
}

void PointwiseConv::plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x,
                         const ChannelAddressing& y, const Tensor* w, int threads) {
  shape_ = c;
  xAddr_ = x;
  yAddr_ = y;
  const int64_t C = c.inChannels, M = c.outChannels, outBlocks = channelBlocks(M);
  weights_.plan(cache, {w}, "PointwiseConv C" + std::to_string(C) + " M" + std::to_string(M),
                roundUpChannels(C) * outBlocks * kVector, [w, C, M, outBlocks](float* dst) {
                  const float* src = w->data<float>();  // [M][C]
                  for (int64_t ch = 0; ch < C; ++ch)
                    for (int64_t m = 0; m < M; ++m)
                      for (int64_t q = 0; q < 4; ++q)
                        dst[(ch * outBlocks + m / 4) * kVector + q * 4 + m % 4] = src[m * C + ch];
                });
  bias_.assign(outBlocks * kVector, 0.f);
  // Chunks of whole pixel steps, small enough that every thread gets several.
  const int64_t pixels = y.spatial, wanted = std::max<int64_t>(1, 4 * threads / std::max<int64_t>(1, c.batch));
  chunk_ = std::min(kMaxChunk, (pixels + wanted - 1) / wanted);
  chunk_ = std::max(kPixelStep, (chunk_ + kPixelStep - 1) / kPixelStep * kPixelStep);
  chunks_ = (pixels + chunk_ - 1) / chunk_;
}

void PointwiseConv::run(ThreadPool& pool, const float* x, const float* bias, const float* z, float* y,
                        const FusedActivation& act) {
#ifdef TESSERA_POINTWISE_X86
  const float* w = weights_.get();
  const int64_t M = shape_.outChannels;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t q = 0; q < 4; ++q) bias_[(m / 4) * kVector + q * 4 + m % 4] = bias ? bias[m] : 0.f;
  Geometry g;
  g.inBlocks = channelBlocks(shape_.inChannels);
  g.padChannels = static_cast<int>(g.inBlocks * kChannelPack - shape_.inChannels);
  g.outBlocks = channelBlocks(M);
  g.xBlockStride = xAddr_.spatial * kChannelPack;
  g.yBlockStride = yAddr_.spatial * kChannelPack;
  const int64_t pixels = yAddr_.spatial;
  // Output blocks in even passes (12 as 6 + 6, not 8 + 4): each input vector's permutes
  // serve every block of a pass, so a short last pass costs more per multiply-add.
  const bool avx512 = cpuIsa() == CpuIsa::kAvx512;
  const int64_t maxPerPass = avx512 ? kMaxBlocksPerPass : kMaxBlocksPerPassAvx2;
  const int64_t passes = (g.outBlocks + maxPerPass - 1) / maxPerPass;
  const int64_t perPass = (g.outBlocks + passes - 1) / passes;
  const RegisterClamp clamp = RegisterClamp::of(act, z != nullptr);
  runClaimedRanges(pool, shape_.batch * chunks_, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n = t / chunks_, p0 = (t % chunks_) * chunk_, p1 = std::min(pixels, p0 + chunk_);
      const float* xb = x + n * xAddr_.batchStride;
      float* yb = y + n * yAddr_.batchStride;
      // Pass by pass over the chunk: a pass's weights stay in L1 while its pixels go by.
      for (int64_t mb0 = 0; mb0 < g.outBlocks; mb0 += perPass) {
        const int blocks = static_cast<int>(std::min<int64_t>(perPass, g.outBlocks - mb0));
        if (!avx512) {
          pixelRunAvx2For(blocks, g, xb, w, bias_.data(), yb, p0, p1, mb0, clamp);
          continue;
        }
        for (int64_t p = p0; p < p1; p += kPixelStep)
          blocksAt(blocks, g, xb, w, bias_.data(), yb, p, mb0, static_cast<int>(std::min(kPixelStep, p1 - p)), clamp);
      }
      for (int64_t mb = 0; mb < g.outBlocks; ++mb) {  // the chunk, still in cache
        float* dst = yb + mb * g.yBlockStride + p0 * kChannelPack;
        const int64_t count = (p1 - p0) * kChannelPack;
        if (z) addSumRange(dst, z + (dst - y), count);
        if (!clamp.any()) applyFusedActivation(act, dst, count);
      }
    }
  });
#else
  (void)pool, (void)x, (void)bias, (void)z, (void)y, (void)act;
#endif
}

}  // namespace tessera
