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

#ifdef TESSERA_FEW_OUTPUTS_X86
#define TESSERA_FEW_INLINE __attribute__((target("avx512f"), always_inline)) inline

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
__attribute__((target("avx512f"))) void rowOf(const Row& r) {
  int64_t iw = 0;
  for (; iw + 8 <= r.W; iw += 8) pixels<M, 2>(r, iw);
  for (; iw + 4 <= r.W; iw += 4) pixels<M, 1>(r, iw);
  // The last 1-3 pixels one at a time.
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
#endif

}  // namespace

bool Upsample2x2FewOutputs::suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y) {
#ifdef TESSERA_FEW_OUTPUTS_X86
  return cpuIsa() == CpuIsa::kAvx512 && c.group == 1 && x.packed && !y.packed && c.outChannels <= kMaxOutputs &&
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
  pool.parallelFor(rows, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / H, ih = i % H;
      Row r = base;
      r.x = x + n * xAddr_.batchStride + ih * r.W * kChannelPack;
      r.y = y + n * yAddr_.batchStride + 2 * ih * r.OW;
      if (M == 1) rowOf<1>(r);
      if (M == 2) rowOf<2>(r);
      if (M == 3) rowOf<3>(r);
      if (activates)  // the two output rows of each channel just written, still in cache
        for (int64_t m = 0; m < M; ++m) applyFusedActivation(act, r.y + m * r.yPlane, 2 * r.OW);
    }
  }, 1);
#else
  (void)pool, (void)x, (void)bias, (void)y, (void)act;
#endif
}

}  // namespace tessera
