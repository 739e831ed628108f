// Cache-blocked GEMM (Goto-style): K is cut into chunks that keep a B panel in L1, rows of A
// into blocks that stay in L2; an MR x NR register tile is accumulated by the inner kernel.
#include "backends/cpu/Gemm.hpp"

#include <algorithm>
#include <cstring>

#include "tessera/ThreadPool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_GEMM_X86 1
#endif

namespace tessera {
namespace {

constexpr int kNR = 16;      // columns per B panel and per register tile
constexpr int64_t kKC = 256;  // K chunk: one B panel chunk is 16 KB
constexpr int64_t kMC = 96;   // rows of A packed at once (multiple of every MR below)
constexpr int kMaxMR = 6;

// Computes an MR x kNR tile: tile[r*kNR + c] = sum_k a[k*MR + r] * b[k*kNR + c].
using TileKernel = void (*)(int64_t kb, const float* a, const float* b, float* tile);

// Portable kernel: fixed trip counts let the compiler unroll and vectorise it.
void tileKernelPortable(int64_t kb, const float* a, const float* b, float* tile) {
  constexpr int MR = 4;
  float acc[MR][kNR] = {};
  for (int64_t k = 0; k < kb; ++k) {
    for (int r = 0; r < MR; ++r) {
      const float av = a[r];
      for (int c = 0; c < kNR; ++c) acc[r][c] += av * b[c];
    }
    a += MR;
    b += kNR;
  }
  std::memcpy(tile, acc, sizeof(acc));
}

#ifdef TESSERA_GEMM_X86
// 6 x 16 tile in twelve 8-wide accumulators, fused multiply-add.
__attribute__((target("avx2,fma"))) void tileKernelAvx2(int64_t kb, const float* a, const float* b,
                                                         float* tile) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t k = 0; k < kb; ++k) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
    __m256 av = _mm256_broadcast_ss(a + 0);
    c00 = _mm256_fmadd_ps(av, b0, c00); c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(av, b0, c10); c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(av, b0, c20); c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(av, b0, c30); c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(av, b0, c40); c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(av, b0, c50); c51 = _mm256_fmadd_ps(av, b1, c51);
    a += 6;
    b += kNR;
  }
  _mm256_storeu_ps(tile + 0 * kNR, c00); _mm256_storeu_ps(tile + 0 * kNR + 8, c01);
  _mm256_storeu_ps(tile + 1 * kNR, c10); _mm256_storeu_ps(tile + 1 * kNR + 8, c11);
  _mm256_storeu_ps(tile + 2 * kNR, c20); _mm256_storeu_ps(tile + 2 * kNR + 8, c21);
  _mm256_storeu_ps(tile + 3 * kNR, c30); _mm256_storeu_ps(tile + 3 * kNR + 8, c31);
  _mm256_storeu_ps(tile + 4 * kNR, c40); _mm256_storeu_ps(tile + 4 * kNR + 8, c41);
  _mm256_storeu_ps(tile + 5 * kNR, c50); _mm256_storeu_ps(tile + 5 * kNR + 8, c51);
}
#endif

struct KernelChoice {
  TileKernel fn;
  int mr;
};

KernelChoice chooseKernel() {
#ifdef TESSERA_GEMM_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {tileKernelAvx2, 6};
#endif
  return {tileKernelPortable, 4};
}

const KernelChoice& kernel() {
  static const KernelChoice k = chooseKernel();
  return k;
}

// Packs rows [m0, m0+mb) x columns [k0, k0+kb) of A into MR-row panels, zero-padding the
// last panel: packed[(p*kb + k)*MR + r] = A(m0 + p*MR + r, k0 + k).
void packA(const GemmArgs& g, int64_t m0, int64_t mb, int64_t k0, int64_t kb, int mr, float* packed) {
  for (int64_t p = 0; p * mr < mb; ++p) {
    float* dst = packed + p * kb * mr;
    for (int r = 0; r < mr; ++r) {
      const int64_t m = m0 + p * mr + r;
      if (p * mr + r >= mb) {
        for (int64_t k = 0; k < kb; ++k) dst[k * mr + r] = 0.f;
      } else if (!g.transA) {
        const float* src = g.A + m * g.lda + k0;
        for (int64_t k = 0; k < kb; ++k) dst[k * mr + r] = src[k];
      } else {
        const float* src = g.A + k0 * g.lda + m;
        for (int64_t k = 0; k < kb; ++k) dst[k * mr + r] = src[k * g.lda];
      }
    }
  }
}

void storeTile(const GemmArgs& g, const float* tile, int64_t m, int64_t n, int rows, int cols,
               bool accumulate) {
  for (int r = 0; r < rows; ++r) {
    float* c = g.C + (m + r) * g.ldc + n;
    const float* t = tile + r * kNR;
    if (accumulate) {
      for (int j = 0; j < cols; ++j) c[j] += g.alpha * t[j];
    } else {
      for (int j = 0; j < cols; ++j) c[j] = g.alpha * t[j];
    }
  }
}

}  // namespace

int gemmPanelWidth() { return kNR; }

int64_t gemmPackedBSize(int64_t K, int64_t N) { return ((N + kNR - 1) / kNR) * kNR * K; }

void gemmPackB(int64_t K, int64_t N, const float* B, int64_t ldb, bool transB, float* packed) {
  const int64_t panels = (N + kNR - 1) / kNR;
  for (int64_t p = 0; p < panels; ++p) {
    float* dst = packed + p * K * kNR;
    const int64_t n0 = p * kNR;
    const int cols = static_cast<int>(std::min<int64_t>(kNR, N - n0));
    for (int64_t k = 0; k < K; ++k) {
      float* row = dst + k * kNR;
      if (!transB) {
        const float* src = B + k * ldb + n0;
        for (int c = 0; c < cols; ++c) row[c] = src[c];
      } else {
        for (int c = 0; c < cols; ++c) row[c] = B[(n0 + c) * ldb + k];
      }
      for (int c = cols; c < kNR; ++c) row[c] = 0.f;
    }
  }
}

void gemmPackedTile(const GemmArgs& g, int64_t mBegin, int64_t mEnd, int64_t nBegin, int64_t nEnd) {
  if (mBegin >= mEnd || nBegin >= nEnd) return;
  const KernelChoice& kc = kernel();
  const int mr = kc.mr;
  if (g.K == 0) {  // empty sum: C = 0 (or unchanged when accumulating)
    if (!g.accumulate)
      for (int64_t m = mBegin; m < mEnd; ++m)
        std::fill(g.C + m * g.ldc + nBegin, g.C + m * g.ldc + nEnd, 0.f);
    return;
  }
  alignas(64) float packedA[kMC * kKC];
  alignas(64) float tile[kMaxMR * kNR];
  for (int64_t k0 = 0; k0 < g.K; k0 += kKC) {
    const int64_t kb = std::min(kKC, g.K - k0);
    const bool accumulate = g.accumulate || k0 > 0;
    for (int64_t m0 = mBegin; m0 < mEnd; m0 += kMC) {
      const int64_t mb = std::min(kMC, mEnd - m0);
      packA(g, m0, mb, k0, kb, mr, packedA);
      for (int64_t n0 = nBegin; n0 < nEnd; n0 += kNR) {
        const int cols = static_cast<int>(std::min<int64_t>(kNR, nEnd - n0));
        const float* bPanel = g.packedB + (n0 / kNR) * g.K * kNR + k0 * kNR;
        for (int64_t p = 0; p * mr < mb; ++p) {
          const int rows = static_cast<int>(std::min<int64_t>(mr, mb - p * mr));
          kc.fn(kb, packedA + p * kb * mr, bPanel, tile);
          storeTile(g, tile, m0 + p * mr, n0, rows, cols, accumulate);
        }
      }
    }
  }
}

void gemmPacked(ThreadPool& pool, const GemmArgs& g) {
  const int threads = pool.threads();
  const int mr = kernel().mr;
  const int64_t work = g.M * g.N * std::max<int64_t>(g.K, 1);
  if (threads <= 1 || work < (int64_t(1) << 18)) {
    gemmPackedTile(g, 0, g.M, 0, g.N);
    return;
  }
  // A grid of row chunks x column chunks with about one task per thread.
  const int64_t rowPanels = (g.M + mr - 1) / mr;
  const int64_t colPanels = (g.N + kNR - 1) / kNR;
  const int64_t mChunks = std::min<int64_t>(threads, rowPanels);
  const int64_t nChunks = std::min<int64_t>((threads + mChunks - 1) / mChunks, colPanels);
  const int64_t rowsPerChunk = ((rowPanels + mChunks - 1) / mChunks) * mr;
  const int64_t panelsPerChunk = (colPanels + nChunks - 1) / nChunks;
  pool.parallelFor(mChunks * nChunks, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t mi = t / nChunks, ni = t % nChunks;
      const int64_t m0 = mi * rowsPerChunk, m1 = std::min(g.M, m0 + rowsPerChunk);
      const int64_t n0 = ni * panelsPerChunk * kNR, n1 = std::min(g.N, n0 + panelsPerChunk * kNR);
      gemmPackedTile(g, m0, m1, n0, n1);
    }
  });
}

}  // namespace tessera
