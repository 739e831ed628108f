#include "backends/cpu/ConvTransposeFewOutputs.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "backends/cpu/ConvTransposeUpsample.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "tessera/ThreadPool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_FEW_OUTPUTS_X86 1
#endif

namespace tessera {
namespace {

constexpr int kTaps = 4;     // (kh, kw) = (0,0), (0,1), (1,0), (1,1)
constexpr int kVector = 16;  // 4 pixels x 4 channels

// What one input row needs.
struct Row {
  const float* x;  // (row, column 0) of channel block 0
  const float* w;  // packed weights
  float* y;        // output channel 0, row 2 * ih
  int64_t W, blocks, xBlockStride, yPlane, OW;
  __mmask16 lastBlock;  // lanes of the last block that hold channels
  float bias[Upsample2x2FewOutputs::kMaxOutputs];
};

// Pixels iw .. W - 1 of the row one at a time (the last few).
template <int M>
void lastPixels(const Row& r, int64_t iw) {
  for (; iw < r.W; ++iw)
    for (int m = 0; m < M; ++m)
      for (int t = 0; t < kTaps; ++t) {
        float s = r.bias[m];
        for (int64_t b = 0; b < r.blocks; ++b)
          for (int l = 0; l < 4; ++l)
            if (r.lastBlock >> l & 1 || b + 1 < r.blocks)
              s += r.x[b * r.xBlockStride + iw * 4 + l] * r.w[((b * M + m) * kTaps + t) * kVector + l];
        r.y[m * r.yPlane + (t / 2) * r.OW + 2 * iw + t % 2] = s;
      }
}

#ifdef TESSERA_FEW_OUTPUTS_X86
#define TESSERA_FEW_INLINE __attribute__((target("avx512f"), always_inline)) inline
#define TESSERA_FEW_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

// Per 128-bit lane (one pixel), the sums of a0, a1, a2, a3's four lanes: [sum a0, sum a1,
// sum a2, sum a3]. Zero-masked forms: GCC 12 warns on the plain ones' undefined operand.
TESSERA_FEW_INLINE __m512 laneSums(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
  const __m512 s01 = _mm512_add_ps(_mm512_maskz_unpacklo_ps(0xFFFF, a0, a1), _mm512_maskz_unpackhi_ps(0xFFFF, a0, a1));
  const __m512 s23 = _mm512_add_ps(_mm512_maskz_unpacklo_ps(0xFFFF, a2, a3), _mm512_maskz_unpackhi_ps(0xFFFF, a2, a3));
  return _mm512_add_ps(_mm512_maskz_shuffle_ps(0xFFFF, s01, s23, _MM_SHUFFLE(1, 0, 1, 0)),
                       _mm512_maskz_shuffle_ps(0xFFFF, s01, s23, _MM_SHUFFLE(3, 2, 3, 2)));
}

// 4G input pixels from column iw onto M output channels.
template <int M, int G>
__attribute__((target("avx512f"))) void pixels(const Row& r, int64_t iw) {
  __m512 acc[G][M][kTaps];
  for (int g = 0; g < G; ++g)
    for (int m = 0; m < M; ++m)
      for (int t = 0; t < kTaps; ++t) acc[g][m][t] = _mm512_setzero_ps();
  const float* xp = r.x + iw * 4;
  const float* wp = r.w;
  for (int64_t b = 0; b < r.blocks; ++b, xp += r.xBlockStride, wp += M * kTaps * kVector) {
    const __mmask16 lanes = b + 1 == r.blocks ? r.lastBlock : 0xFFFF;
    __m512 xv[G];
    for (int g = 0; g < G; ++g) xv[g] = _mm512_maskz_loadu_ps(lanes, xp + g * kVector);
    for (int m = 0; m < M; ++m)
      for (int t = 0; t < kTaps; ++t) {
        const __m512 wv = _mm512_loadu_ps(wp + (m * kTaps + t) * kVector);
        for (int g = 0; g < G; ++g) acc[g][m][t] = _mm512_fmadd_ps(xv[g], wv, acc[g][m][t]);
      }
  }
  // Pixel p's taps sit at lanes 4p .. 4p + 3; row 2ih takes (kh 0: kw 0, 1) of each pixel,
  // row 2ih + 1 (kh 1: kw 0, 1).
  const __m512i split = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  alignas(64) float rows[kVector];
  for (int g = 0; g < G; ++g)
    for (int m = 0; m < M; ++m) {
      const __m512 sums = _mm512_add_ps(laneSums(acc[g][m][0], acc[g][m][1], acc[g][m][2], acc[g][m][3]),
                                        _mm512_set1_ps(r.bias[m]));
      _mm512_store_ps(rows, _mm512_maskz_permutexvar_ps(0xFFFF, split, sums));
      float* y0 = r.y + m * r.yPlane + 2 * (iw + 4 * g);
      std::memcpy(y0, rows, 8 * sizeof(float));
      std::memcpy(y0 + r.OW, rows + 8, 8 * sizeof(float));
    }
}

template <int M>
__attribute__((target("avx512f"))) void rowOfAvx512(const Row& r) {
  int64_t iw = 0;
  for (; iw + 8 <= r.W; iw += 8) pixels<M, 2>(r, iw);
  for (; iw + 4 <= r.W; iw += 4) pixels<M, 1>(r, iw);
  lastPixels<M>(r, iw);
}

// AVX2: a 256-bit vector holds 2 input pixels x the 4 channels of one input block, the same
// scheme at half the width (the weights' first 8 floats of each 16 are the 2-pixel form).
// `lastBlock` lanes as a load mask.
TESSERA_FEW_AVX2_INLINE __m256 loadBlock(const float* p, bool last, __m256i lastMask) {
  return last ? _mm256_maskload_ps(p, lastMask) : _mm256_loadu_ps(p);
}

// 2G input pixels from column iw onto M output channels. Per pixel, three horizontal adds
// sum each tap accumulator's 4 channel lanes into [tap 0, 1, 2, 3]; one permute puts row
// 2ih's taps (kh 0) of both pixels in the low half and row 2ih + 1's in the high half.
template <int M, int G>
__attribute__((target("avx2,fma"))) void pixelsAvx2(const Row& r, int64_t iw, __m256i lastMask) {
  __m256 acc[G][M][kTaps];
  for (int g = 0; g < G; ++g)
    for (int m = 0; m < M; ++m)
      for (int t = 0; t < kTaps; ++t) acc[g][m][t] = _mm256_setzero_ps();
  const float* xp = r.x + iw * 4;
  const float* wp = r.w;
  for (int64_t b = 0; b < r.blocks; ++b, xp += r.xBlockStride, wp += M * kTaps * kVector) {
    const bool last = b + 1 == r.blocks;
    __m256 xv[G];
    for (int g = 0; g < G; ++g) xv[g] = loadBlock(xp + g * 8, last, lastMask);
    for (int m = 0; m < M; ++m)
      for (int t = 0; t < kTaps; ++t) {
        const __m256 wv = _mm256_loadu_ps(wp + (m * kTaps + t) * kVector);
        for (int g = 0; g < G; ++g) acc[g][m][t] = _mm256_fmadd_ps(xv[g], wv, acc[g][m][t]);
      }
  }
  const __m256i split = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
  for (int g = 0; g < G; ++g)
    for (int m = 0; m < M; ++m) {
      const __m256 h01 = _mm256_hadd_ps(acc[g][m][0], acc[g][m][1]);
      const __m256 h23 = _mm256_hadd_ps(acc[g][m][2], acc[g][m][3]);
      const __m256 sums = _mm256_add_ps(_mm256_hadd_ps(h01, h23), _mm256_set1_ps(r.bias[m]));
      const __m256 rows = _mm256_permutevar8x32_ps(sums, split);
      float* y0 = r.y + m * r.yPlane + 2 * (iw + 2 * g);
      _mm_storeu_ps(y0, _mm256_castps256_ps128(rows));
      _mm_storeu_ps(y0 + r.OW, _mm256_extractf128_ps(rows, 1));
    }
}

template <int M>
__attribute__((target("avx2,fma"))) void rowOfAvx2(const Row& r) {
  const int lastLanes = __builtin_popcount(r.lastBlock & 0xF);
  const __m256i lastMask = _mm256_cmpgt_epi32(_mm256_set1_epi32(lastLanes), _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3));
  int64_t iw = 0;
  constexpr int G = M == 1 ? 2 : 1;  // accumulators: 4 G M of the 16 registers
  for (; iw + 2 * G <= r.W; iw += 2 * G) pixelsAvx2<M, G>(r, iw, lastMask);
  for (; iw + 2 <= r.W; iw += 2) pixelsAvx2<M, 1>(r, iw, lastMask);
  lastPixels<M>(r, iw);
}
#endif

}  // namespace

bool Upsample2x2FewOutputs::suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y) {
#ifdef TESSERA_FEW_OUTPUTS_X86
  return cpuIsa() != CpuIsa::kGeneric && c.group == 1 && x.packed && !y.packed && c.outChannels <= kMaxOutputs &&
         isUpsample2x2(c.window);
#else
  (void)c, (void)x, (void)y;
  return false;
#endif
}

void Upsample2x2FewOutputs::plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x,
                                 const ChannelAddressing& y, const Tensor* w) {
  shape_ = c;
  xAddr_ = x;
  yAddr_ = y;
  const int64_t K = c.inChannels, M = c.outChannels, blocks = channelBlocks(K);
  weights_.plan(cache, {w}, "Upsample2x2FewOutputs C" + std::to_string(K) + " M" + std::to_string(M),
                blocks * M * kTaps * kVector, [w, K, M](float* dst) {
                  const float* src = w->data<float>();  // [K][M][kh][kw]
                  for (int64_t k = 0; k < K; ++k)
                    for (int64_t m = 0; m < M; ++m)
                      for (int t = 0; t < kTaps; ++t)
                        for (int p = 0; p < 4; ++p)
                          dst[(((k / 4) * M + m) * kTaps + t) * kVector + p * 4 + k % 4] = src[(k * M + m) * kTaps + t];
                });
}

void Upsample2x2FewOutputs::run(ThreadPool& pool, const float* x, const float* bias, float* y,
                                const FusedActivation& act) {
#ifdef TESSERA_FEW_OUTPUTS_X86
  const WindowGeometry& g = shape_.window;
  const int64_t H = g.input[0], M = shape_.outChannels, rows = shape_.batch * H;
  Row base;
  base.w = weights_.get();
  base.W = g.input[1];
  base.blocks = channelBlocks(shape_.inChannels);
  base.xBlockStride = xAddr_.spatial * kChannelPack;
  base.OW = g.output[1];
  base.yPlane = yAddr_.spatial;
  const int lastLanes = static_cast<int>(shape_.inChannels - (base.blocks - 1) * kChannelPack);
  base.lastBlock = static_cast<__mmask16>(0x1111 * ((1u << lastLanes) - 1));  // those lanes of each pixel
  for (int64_t m = 0; m < M; ++m) base.bias[m] = bias ? bias[m] : 0.f;
  const bool activates = act.kind != FusedActivation::kNone || act.hasAffine();
  const bool avx512 = cpuIsa() == CpuIsa::kAvx512;
  pool.parallelFor(rows, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / H, ih = i % H;
      Row r = base;
      r.x = x + n * xAddr_.batchStride + ih * r.W * kChannelPack;
      r.y = y + n * yAddr_.batchStride + 2 * ih * r.OW;
      if (avx512) {
        if (M == 1) rowOfAvx512<1>(r);
        if (M == 2) rowOfAvx512<2>(r);
        if (M == 3) rowOfAvx512<3>(r);
      } else {
        if (M == 1) rowOfAvx2<1>(r);
        if (M == 2) rowOfAvx2<2>(r);
        if (M == 3) rowOfAvx2<3>(r);
      }
      if (activates)  // the two output rows of each channel just written, still in cache
        for (int64_t m = 0; m < M; ++m) applyFusedActivation(act, r.y + m * r.yPlane, 2 * r.OW);
    }
  }, 1);
#else
  (void)pool, (void)x, (void)bias, (void)y, (void)act;
#endif
}

}  // namespace tessera
