// Cache-blocked GEMM: K is cut into chunks that keep a pair of B panel chunks in L1, rows of
// A into blocks that stay in L2. Each block of A is first packed into panels of MR rows laid
// out [k / 4][row][k % 4], so the inner kernel broadcasts every A value from one pointer at a
// fixed offset (an NC4HW4 activation is laid out so already and is read in place); B comes
// from panels packed once. Reading a row-major A where it lies instead needs a pointer per
// row: on Intel cores those twelve streams (and the registers they take) held the 12-row
// kernel near 60% of peak, against ~90% packed. A product only one or two panels wide reads
// A once per panel at most, so there packing would cost more than it saves: it keeps the
// kernels that read A in place. C is row-major, or an NC4HW4 activation that the kernels
// write with its bias (a conv's output: no product buffer and no scatter after).
#include "backends/cpu/Gemm.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/FmaInPlace.hpp"
#include "backends/cpu/Transpose4x4.hpp"
#include "tessera/ThreadPool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_GEMM_X86 1
#endif

namespace tessera {
namespace {

constexpr int kNR = 16;       // columns per B panel and per full register tile
constexpr int64_t kKC = 256;  // K chunk: a pair of B panel chunks is 32 KB (L1)
constexpr int64_t kMC = 96;   // rows of A per L2 block
constexpr int kMaxMR = 12;

// One register tile: C(r, c) (+)= sum_k A(r, k) B(k, c) for r < rows, c < NR (the kernel's
// width), with A(r, k) = a[r * rowStride + (k / 4) * groupStride + (k % 4) * kStep] (plain
// matrices: groupStride = 4 * kStep; an NC4HW4 activation read in place: rowStride 4,
// kStep 1, groupStride the channel-block stride) and B(k, c) = b[k * kNR + c]. Rows past
// `rows` re-read the last row (nothing outside A is touched) and their results are dropped.
// Kernels walk K in groups of 4: TESSERA_FOR_K sets `ak`, the offset of k within a row.
#define TESSERA_FOR_K(t, b)                                                       \
  for (int64_t g_ = 0, ag_ = 0; g_ < (t).kb; g_ += 4, ag_ += (t).groupStride)      \
    for (int64_t j_ = 0, n_ = std::min<int64_t>(4, (t).kb - g_), ak = ag_; j_ < n_; \
         ++j_, ak += (t).kStep, (b) += kNR)
struct Tile {
  const float* a;
  int64_t rowStride, kStep, groupStride;
  int rows;
  const float* b;
  const float* b2;  // the next panel, for the 24-wide kernel (its first 8 columns)
  int64_t kb;
  float* c;
  int64_t ldc;
  bool accumulate;
};
using TileKernel = void (*)(const Tile& t);

struct KernelSet {
  TileKernel full;    // kMR x kNR
  int mr;
  TileKernel narrow;  // narrowMR x 8, for a last panel with at most 8 real columns (or null)
  int narrowMR;
  TileKernel wide;    // wideMR x 24: a full panel and the first 8 columns of the next (or null)
  int wideMR;
  TileKernel row;     // 1 x kNR, for a lone row (a GEMV: a recurrent step at batch 1), or null
};

// Portable kernel: fixed trip counts let the compiler unroll and vectorise it.
void tilePortable(const Tile& t) {
  constexpr int MR = 4;
  float acc[MR][kNR] = {};
  const float* a[MR];
  for (int r = 0; r < MR; ++r) a[r] = t.a + std::min(r, t.rows - 1) * t.rowStride;
  const float* b = t.b;
  TESSERA_FOR_K(t, b)
    for (int r = 0; r < MR; ++r) {
      const float av = a[r][ak];
      for (int c = 0; c < kNR; ++c) acc[r][c] += av * b[c];
    }
  for (int r = 0; r < std::min(MR, t.rows); ++r)
    for (int c = 0; c < kNR; ++c) t.c[r * t.ldc + c] = (t.accumulate ? t.c[r * t.ldc + c] : 0.f) + acc[r][c];
}

#ifdef TESSERA_GEMM_X86
// AVX2 kernels name their accumulators one by one: GCC spilled arrays of them to the stack on
// every step.
#define TESSERA_ROW(r) (t.a + std::min(r, t.rows - 1) * t.rowStride)

// Stores (or adds) the first `rows` rows of a 6 x 16 tile held as 12 8-wide halves.
__attribute__((target("avx2,fma"))) inline void storeRowsAvx2(const __m256 (&out)[12], int rows, float* c,
                                                             int64_t ldc, bool accumulate) {
  for (int r = 0; r < rows; ++r)
    for (int h = 0; h < 2; ++h) {
      float* dst = c + r * ldc + h * 8;
      _mm256_storeu_ps(dst, accumulate ? _mm256_add_ps(out[r * 2 + h], _mm256_loadu_ps(dst)) : out[r * 2 + h]);
    }
}

// How far ahead of its reads the packed kernels (AVX-512 pair, AVX2) prefetch each B panel:
// 64 k steps (4 KB). Where B comes from memory (weights past the caches in a whole net, read
// for few rows, such as ResNet-18's 512 -> 512 Winograd GEMMs over 16 tiles) the hardware
// prefetcher alone left the kernels waiting. 2 threads, 5 interleaved rounds, medians:
// AVX-512, ResNet-18 10.48 -> 9.78 ms, ViT-S 17.55 -> 16.92, a 2-layer BERT-base encoder
// 13.42 -> 12.56, PP-OCRv4 det 640 unchanged; AVX2 (TESSERA_CPU_ISA=avx2), ResNet-18 15.77 ->
// 14.85, BERT 24.71 -> 24.03. 512 floats ahead gained less, 2048 less still. B in cache
// (the kernel micro-benchmarks' MatMul and 1x1 conv): no change.
constexpr int64_t kPrefetchFloats = 1024;

// 6 x 16 in twelve 8-wide accumulators.
__attribute__((target("avx2,fma"))) void tileAvx2(const Tile& t) {
  const float *a0 = TESSERA_ROW(0), *a1 = TESSERA_ROW(1), *a2 = TESSERA_ROW(2);
  const float *a3 = TESSERA_ROW(3), *a4 = TESSERA_ROW(4), *a5 = TESSERA_ROW(5);
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  const float* b = t.b;
  TESSERA_FOR_K(t, b) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    __m256 av = _mm256_broadcast_ss(a0 + ak);
    c00 = _mm256_fmadd_ps(av, b0, c00); c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a1 + ak);
    c10 = _mm256_fmadd_ps(av, b0, c10); c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a2 + ak);
    c20 = _mm256_fmadd_ps(av, b0, c20); c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a3 + ak);
    c30 = _mm256_fmadd_ps(av, b0, c30); c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a4 + ak);
    c40 = _mm256_fmadd_ps(av, b0, c40); c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a5 + ak);
    c50 = _mm256_fmadd_ps(av, b0, c50); c51 = _mm256_fmadd_ps(av, b1, c51);
  }
  const __m256 out[12] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};
  storeRowsAvx2(out, t.rows, t.c, t.ldc, t.accumulate);
}

// 12 x 8: the left half of a panel, for N's last columns (N = 24 would otherwise waste a
// quarter of the multiply-adds on zero padding).
__attribute__((target("avx2,fma"))) void tileAvx2Narrow(const Tile& t) {
  const float *a0 = TESSERA_ROW(0), *a1 = TESSERA_ROW(1), *a2 = TESSERA_ROW(2), *a3 = TESSERA_ROW(3);
  const float *a4 = TESSERA_ROW(4), *a5 = TESSERA_ROW(5), *a6 = TESSERA_ROW(6), *a7 = TESSERA_ROW(7);
  const float *a8 = TESSERA_ROW(8), *a9 = TESSERA_ROW(9), *a10 = TESSERA_ROW(10), *a11 = TESSERA_ROW(11);
  __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
  __m256 c6 = c0, c7 = c0, c8 = c0, c9 = c0, c10 = c0, c11 = c0;
  const float* b = t.b;
  TESSERA_FOR_K(t, b) {
    const __m256 b0 = _mm256_loadu_ps(b);
    c0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + ak), b0, c0);
    c1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + ak), b0, c1);
    c2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + ak), b0, c2);
    c3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + ak), b0, c3);
    c4 = _mm256_fmadd_ps(_mm256_broadcast_ss(a4 + ak), b0, c4);
    c5 = _mm256_fmadd_ps(_mm256_broadcast_ss(a5 + ak), b0, c5);
    c6 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + ak), b0, c6);
    c7 = _mm256_fmadd_ps(_mm256_broadcast_ss(a7 + ak), b0, c7);
    c8 = _mm256_fmadd_ps(_mm256_broadcast_ss(a8 + ak), b0, c8);
    c9 = _mm256_fmadd_ps(_mm256_broadcast_ss(a9 + ak), b0, c9);
    c10 = _mm256_fmadd_ps(_mm256_broadcast_ss(a10 + ak), b0, c10);
    c11 = _mm256_fmadd_ps(_mm256_broadcast_ss(a11 + ak), b0, c11);
  }
  const __m256 out[12] = {c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11};
  for (int r = 0; r < t.rows; ++r) {
    float* c = t.c + r * t.ldc;
    _mm256_storeu_ps(c, t.accumulate ? _mm256_add_ps(out[r], _mm256_loadu_ps(c)) : out[r]);
  }
}

// 4 x 24 (three 8-wide accumulators a row) for N's last 17..24 columns: one pass over A
// serves both panels, where a 16-wide pass and the 12 x 8 one (a broadcast a multiply-add)
// read it twice. Winograd 3x3 96 -> 24 (PP-OCRv4 det's) at 160x160, a one-conv model
// alternating in one process, Zen 3: p10 11.3 -> 10.3 ms one thread, 7.07 -> 6.49 two;
// det 320 8.88 -> 8.54 ms.
__attribute__((target("avx2,fma"))) void tileAvx2Wide(const Tile& t) {
  const float *a0 = TESSERA_ROW(0), *a1 = TESSERA_ROW(1), *a2 = TESSERA_ROW(2), *a3 = TESSERA_ROW(3);
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00;
  __m256 c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00;
  const float* b = t.b;
  const float* b2 = t.b2;
  TESSERA_FOR_K(t, b) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), bw = _mm256_loadu_ps(b2);
    b2 += kNR;
    __m256 av = _mm256_broadcast_ss(a0 + ak);
    c00 = _mm256_fmadd_ps(av, b0, c00); c01 = _mm256_fmadd_ps(av, b1, c01); c02 = _mm256_fmadd_ps(av, bw, c02);
    av = _mm256_broadcast_ss(a1 + ak);
    c10 = _mm256_fmadd_ps(av, b0, c10); c11 = _mm256_fmadd_ps(av, b1, c11); c12 = _mm256_fmadd_ps(av, bw, c12);
    av = _mm256_broadcast_ss(a2 + ak);
    c20 = _mm256_fmadd_ps(av, b0, c20); c21 = _mm256_fmadd_ps(av, b1, c21); c22 = _mm256_fmadd_ps(av, bw, c22);
    av = _mm256_broadcast_ss(a3 + ak);
    c30 = _mm256_fmadd_ps(av, b0, c30); c31 = _mm256_fmadd_ps(av, b1, c31); c32 = _mm256_fmadd_ps(av, bw, c32);
  }
  const __m256 out[12] = {c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32};
  for (int r = 0; r < t.rows; ++r)
    for (int h = 0; h < 3; ++h) {
      float* dst = t.c + r * t.ldc + h * 8;
      _mm256_storeu_ps(dst, t.accumulate ? _mm256_add_ps(out[r * 3 + h], _mm256_loadu_ps(dst)) : out[r * 3 + h]);
    }
}

// 12 x 16 in twelve 16-wide accumulators (32 registers leave room for a taller tile).
__attribute__((target("avx512f,avx512vl,fma"))) void tileAvx512(const Tile& t) {
  constexpr int MR = 12;
  __m512 acc[MR];
  const float* a[MR];
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) {
    acc[r] = _mm512_setzero_ps();
    a[r] = t.a + std::min(r, t.rows - 1) * t.rowStride;
  }
  const float* b = t.b;
  TESSERA_FOR_K(t, b) {
    const __m512 b0 = _mm512_loadu_ps(b);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r][ak]), b0, acc[r]);
  }
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) {
    if (r >= t.rows) break;
    float* c = t.c + r * t.ldc;
    _mm512_storeu_ps(c, t.accumulate ? _mm512_add_ps(acc[r], _mm512_loadu_ps(c)) : acc[r]);
  }
}

// 8 x 24 (a 16-lane and an 8-lane accumulator per row) for N's last 17..24 columns: one
// pass over A serves both panels, where a 16-wide and an 8-wide pass read it twice.
__attribute__((target("avx512f,avx512vl,fma"))) void tileAvx512Wide(const Tile& t) {
  // Named accumulators: GCC spilled arrays of them on every step.
  const float *a0 = TESSERA_ROW(0), *a1 = TESSERA_ROW(1), *a2 = TESSERA_ROW(2), *a3 = TESSERA_ROW(3);
  const float *a4 = TESSERA_ROW(4), *a5 = TESSERA_ROW(5), *a6 = TESSERA_ROW(6), *a7 = TESSERA_ROW(7);
  __m512 l0 = _mm512_setzero_ps(), l1 = l0, l2 = l0, l3 = l0, l4 = l0, l5 = l0, l6 = l0, l7 = l0;
  __m256 h0 = _mm256_setzero_ps(), h1 = h0, h2 = h0, h3 = h0, h4 = h0, h5 = h0, h6 = h0, h7 = h0;
  const float* b = t.b;
  const float* b2 = t.b2;
  TESSERA_FOR_K(t, b) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b2);
    b2 += kNR;
    l0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[ak]), b0, l0);
    h0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + ak), b1, h0);
    l1 = _mm512_fmadd_ps(_mm512_set1_ps(a1[ak]), b0, l1);
    h1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + ak), b1, h1);
    l2 = _mm512_fmadd_ps(_mm512_set1_ps(a2[ak]), b0, l2);
    h2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + ak), b1, h2);
    l3 = _mm512_fmadd_ps(_mm512_set1_ps(a3[ak]), b0, l3);
    h3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + ak), b1, h3);
    l4 = _mm512_fmadd_ps(_mm512_set1_ps(a4[ak]), b0, l4);
    h4 = _mm256_fmadd_ps(_mm256_broadcast_ss(a4 + ak), b1, h4);
    l5 = _mm512_fmadd_ps(_mm512_set1_ps(a5[ak]), b0, l5);
    h5 = _mm256_fmadd_ps(_mm256_broadcast_ss(a5 + ak), b1, h5);
    l6 = _mm512_fmadd_ps(_mm512_set1_ps(a6[ak]), b0, l6);
    h6 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + ak), b1, h6);
    l7 = _mm512_fmadd_ps(_mm512_set1_ps(a7[ak]), b0, l7);
    h7 = _mm256_fmadd_ps(_mm256_broadcast_ss(a7 + ak), b1, h7);
  }
  const __m512 lo[8] = {l0, l1, l2, l3, l4, l5, l6, l7};
  const __m256 hi[8] = {h0, h1, h2, h3, h4, h5, h6, h7};
  for (int r = 0; r < t.rows; ++r) {
    float* c = t.c + r * t.ldc;
    _mm512_storeu_ps(c, t.accumulate ? _mm512_add_ps(lo[r], _mm512_loadu_ps(c)) : lo[r]);
    _mm256_storeu_ps(c + kNR, t.accumulate ? _mm256_add_ps(hi[r], _mm256_loadu_ps(c + kNR)) : hi[r]);
  }
}

// 1 x 16: a lone row would leave the 12-row kernel computing 11 copies of it and waiting on one
// FMA chain; four accumulators over consecutive k hide the latency instead.
__attribute__((target("avx512f,fma"))) void rowAvx512(const Tile& t) {
  __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
  const float* a = t.a;
  const float* b = t.b;
  int64_t k = 0;
  for (; k + 4 <= t.kb; k += 4, a += t.groupStride, b += 4 * kNR) {
    c0 = _mm512_fmadd_ps(_mm512_set1_ps(a[0]), _mm512_loadu_ps(b), c0);
    c1 = _mm512_fmadd_ps(_mm512_set1_ps(a[t.kStep]), _mm512_loadu_ps(b + kNR), c1);
    c2 = _mm512_fmadd_ps(_mm512_set1_ps(a[2 * t.kStep]), _mm512_loadu_ps(b + 2 * kNR), c2);
    c3 = _mm512_fmadd_ps(_mm512_set1_ps(a[3 * t.kStep]), _mm512_loadu_ps(b + 3 * kNR), c3);
  }
  for (int64_t j = 0; k + j < t.kb; ++j)
    c0 = _mm512_fmadd_ps(_mm512_set1_ps(a[j * t.kStep]), _mm512_loadu_ps(b + j * kNR), c0);
  const __m512 sum = _mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3));
  _mm512_storeu_ps(t.c, t.accumulate ? _mm512_add_ps(sum, _mm512_loadu_ps(t.c)) : sum);
}

// The same in two 8-wide halves.
__attribute__((target("avx2,fma"))) void rowAvx2(const Tile& t) {
  __m256 l0 = _mm256_setzero_ps(), l1 = l0, h0 = l0, h1 = l0;
  const float* a = t.a;
  const float* b = t.b;
  int64_t k = 0;
  for (; k + 4 <= t.kb; k += 4, a += t.groupStride) {
    for (int j = 0; j < 4; j += 2, b += 2 * kNR) {
      const __m256 x0 = _mm256_broadcast_ss(a + j * t.kStep), x1 = _mm256_broadcast_ss(a + (j + 1) * t.kStep);
      l0 = _mm256_fmadd_ps(x0, _mm256_loadu_ps(b), l0);
      h0 = _mm256_fmadd_ps(x0, _mm256_loadu_ps(b + 8), h0);
      l1 = _mm256_fmadd_ps(x1, _mm256_loadu_ps(b + kNR), l1);
      h1 = _mm256_fmadd_ps(x1, _mm256_loadu_ps(b + kNR + 8), h1);
    }
  }
  for (int64_t j = 0; k + j < t.kb; ++j, b += kNR) {
    const __m256 x = _mm256_broadcast_ss(a + j * t.kStep);
    l0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b), l0);
    h0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 8), h0);
  }
  const __m256 lo = _mm256_add_ps(l0, l1), hi = _mm256_add_ps(h0, h1);
  _mm256_storeu_ps(t.c, t.accumulate ? _mm256_add_ps(lo, _mm256_loadu_ps(t.c)) : lo);
  _mm256_storeu_ps(t.c + 8, t.accumulate ? _mm256_add_ps(hi, _mm256_loadu_ps(t.c + 8)) : hi);
}
#endif

// ---- Kernels on packed A -------------------------------------------------------------------
// A panel of MR rows holds A(r, k) at a[(k / 4) * aGroupStride + r * 4 + k % 4]: packed, the
// group stride is MR * 4 (rows past the block's end and k past kb are zeros); an NC4HW4 A
// read in place has this layout already, with the channel-block stride. B(k, c) =
// b[k * kNR + c], and b2 is the next panel.
struct PackedTile {
  const float* a;
  int64_t aGroupStride;
  const float* b;
  const float* b2;
  int64_t kb;
  float* c;
  int64_t ldc;
  bool accumulate;
  int rows;  // rows of C to store
  // NC4HW4 C (GemmArgs::cBlockStride, else 0): c is the tile's element (0, 0) there, the
  // first `cols` columns (a multiple of 4) are stored, and `bias` (the tile's first column's,
  // or null) starts the sums.
  int64_t cBlockStride;
  int cols;
  const float* bias;
  const RegisterClamp* clamp;  // NC4HW4 C, the last K chunk: applied as the sums are stored (or null)
};
using PackedKernel = void (*)(const PackedTile& t);

// Walks kb in groups of 4: BODY(j) is one k step, j its offset in the group (a and b then
// point at the group). The last group may be partial.
#define TESSERA_PACKED_K(BODY)                                            \
  {                                                                       \
    int64_t k = 0;                                                        \
    for (; k + 4 <= t.kb; k += 4, a += t.aGroupStride, b += 4 * kNR) {   \
      BODY(0) BODY(1) BODY(2) BODY(3)                                     \
    }                                                                     \
    for (int j = 0; k + j < t.kb; ++j) { BODY(j) }                        \
  }

// NC4HW4 C: element (r, col) of the tile at c[(col / 4) * cBlockStride + r * 4 + col % 4].
inline float& nc4At(const PackedTile& t, int r, int col) {
  return t.c[(col / 4) * t.cBlockStride + r * 4 + col % 4];
}

void packedPortable(const PackedTile& t) {
  constexpr int MR = 4;
  float acc[MR][kNR] = {};
  const float* a = t.a;
  const float* b = t.b;
#define TESSERA_STEP(j)                                                  \
  for (int r = 0; r < MR; ++r)                                           \
    for (int c = 0; c < kNR; ++c) acc[r][c] += a[r * 4 + (j)] * b[(j) * kNR + c];
  TESSERA_PACKED_K(TESSERA_STEP)
#undef TESSERA_STEP
  for (int r = 0; r < t.rows; ++r) {
    if (t.cBlockStride) {
      for (int c = 0; c < t.cols; ++c)
        nc4At(t, r, c) = (t.accumulate ? nc4At(t, r, c) : (t.bias ? t.bias[c] : 0.f)) + acc[r][c];
      if (t.clamp)
        for (int c = 0; c < t.cols; ++c) nc4At(t, r, c) = t.clamp->apply(nc4At(t, r, c));
      continue;
    }
    for (int c = 0; c < kNR; ++c) t.c[r * t.ldc + c] = (t.accumulate ? t.c[r * t.ldc + c] : 0.f) + acc[r][c];
  }
}

#ifdef TESSERA_GEMM_X86
// storeRowsAvx2NC4 for any width, rows [r0, t.rows): a 16-byte store a pixel and block.
template <int V>
__attribute__((target("avx2,fma"))) inline void storeRowsAvx2NC4Rows(const __m256 (&out)[12], const PackedTile& t,
                                                                   int r0) {
  for (int r = r0; r < t.rows; ++r)
    for (int q = 0; q < 2 * V && q * 4 < t.cols; ++q) {
      const __m256 half = out[r * V + q / 2];
      const __m128 v = q % 2 ? _mm256_extractf128_ps(half, 1) : _mm256_castps256_ps128(half);
      float* dst = &nc4At(t, r, q * 4);
      __m128 sum = t.accumulate ? _mm_add_ps(v, _mm_loadu_ps(dst)) : v;
      if (t.clamp && t.clamp->upper) sum = _mm_min_ps(sum, _mm_set1_ps(t.clamp->hi));
      if (t.clamp && t.clamp->lower) sum = _mm_max_ps(sum, _mm_set1_ps(t.clamp->lo));
      _mm_storeu_ps(dst, sum);
    }
}

// NC4HW4 C: the first `rows` rows of a tile held as 8-wide vectors, V a row (6 x 16: V = 2;
// 4 x 24: V = 3), each 128-bit lane one pixel's 4 channels of a block.
template <int V>
__attribute__((target("avx2,fma"))) inline void storeRowsAvx2NC4(const __m256 (&out)[12], const PackedTile& t) {
  if (t.cols == 8 * V) {
    // Whole blocks: a block's 4 channels of two adjacent pixels are 8 adjacent floats, one
    // 32-byte store. A 16-byte store a pixel and block, each behind its tests, had taken a
    // fifth of a 1x1 conv's kernel time at K = 64 (64 -> 384 at 32x32, a one-conv model
    // alternating in one process, p10: one thread 0.776 -> 0.694 ms, two 0.442 -> 0.400).
    const bool upper = t.clamp && t.clamp->upper, lower = t.clamp && t.clamp->lower;
    const __m256 hi = _mm256_set1_ps(upper ? t.clamp->hi : 0.f), lo = _mm256_set1_ps(lower ? t.clamp->lo : 0.f);
    int r = 0;
    for (; r + 1 < t.rows; r += 2)
#pragma GCC unroll 6
      for (int q = 0; q < 2 * V; ++q) {
        const __m256 a = out[r * V + q / 2], b = out[(r + 1) * V + q / 2];
        __m256 pair = q % 2 ? _mm256_permute2f128_ps(a, b, 0x31) : _mm256_permute2f128_ps(a, b, 0x20);
        float* dst = t.c + q * t.cBlockStride + r * 4;
        if (t.accumulate) pair = _mm256_add_ps(pair, _mm256_loadu_ps(dst));
        if (upper) pair = _mm256_min_ps(pair, hi);
        if (lower) pair = _mm256_max_ps(pair, lo);
        _mm256_storeu_ps(dst, pair);
      }
    return storeRowsAvx2NC4Rows<V>(out, t, r);  // an odd last row, if any
  }
  storeRowsAvx2NC4Rows<V>(out, t, 0);
}

// The bias of columns [col0, col0 + 8) of a tile whose first `cols` are stored (zeros past
// them, and without a bias).
__attribute__((target("avx2,fma"))) inline __m256 biasAvx2(const PackedTile& t, int col0) {
  if (!t.bias || col0 >= t.cols) return _mm256_setzero_ps();
  if (t.cols - col0 >= 8) return _mm256_loadu_ps(t.bias + col0);
  alignas(32) float part[8] = {};
  for (int c = col0; c < t.cols; ++c) part[c - col0] = t.bias[c];
  return _mm256_load_ps(part);
}

// R x 16 in 2R 8-wide accumulators, R = 6 (the full tile), 4 or 2 (a block's last 3-4 or 1-2
// rows: the 6-row tile does six rows' multiply-adds whatever its height, so the last tile of
// 8 rows, a recurrent step's product for a batch of 8, had cost as much as the first). The
// accumulators are named, not an array (an array of them lived on the stack).
template <int R>
__attribute__((target("avx2,fma"))) void packedAvx2(const PackedTile& t) {
  static_assert(R == 2 || R == 4 || R == 6, "two, four or six rows");
  __m256 c00 = biasAvx2(t, 0), c01 = biasAvx2(t, 8), c10 = c00, c11 = c01, c20 = c00, c21 = c01;
  __m256 c30 = c00, c31 = c01, c40 = c00, c41 = c01, c50 = c00, c51 = c01;
  const float* a = t.a;
  const float* b = t.b;
#define TESSERA_STEP(j)                                                                      \
  {                                                                                          \
    const __m256 b0 = _mm256_loadu_ps(b + (j) * kNR), b1 = _mm256_loadu_ps(b + (j) * kNR + 8); \
    _mm_prefetch(reinterpret_cast<const char*>(b + (j) * kNR + kPrefetchFloats), _MM_HINT_T0); \
    __m256 av = _mm256_broadcast_ss(a + (j));                                                \
    fmaAvx2(c00, av, b0); fmaAvx2(c01, av, b1);                                              \
    av = _mm256_broadcast_ss(a + 4 + (j));                                                   \
    fmaAvx2(c10, av, b0); fmaAvx2(c11, av, b1);                                              \
    if constexpr (R >= 4) {                                                                  \
      av = _mm256_broadcast_ss(a + 8 + (j));                                                 \
      fmaAvx2(c20, av, b0); fmaAvx2(c21, av, b1);                                            \
      av = _mm256_broadcast_ss(a + 12 + (j));                                                \
      fmaAvx2(c30, av, b0); fmaAvx2(c31, av, b1);                                            \
    }                                                                                        \
    if constexpr (R == 6) {                                                                  \
      av = _mm256_broadcast_ss(a + 16 + (j));                                                \
      fmaAvx2(c40, av, b0); fmaAvx2(c41, av, b1);                                            \
      av = _mm256_broadcast_ss(a + 20 + (j));                                                \
      fmaAvx2(c50, av, b0); fmaAvx2(c51, av, b1);                                            \
    }                                                                                        \
  }
  TESSERA_PACKED_K(TESSERA_STEP)
#undef TESSERA_STEP
  const __m256 out[12] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};  // rows past R: unused
  if (t.cBlockStride)
    storeRowsAvx2NC4<2>(out, t);
  else
    storeRowsAvx2(out, t.rows, t.c, t.ldc, t.accumulate);
}

// 4 x 24 for an NC4HW4 A read in place into an NC4HW4 C: a panel's 16 columns and the first 8
// of the next, where those are the product's last (the next panel's other 8 are padding). N =
// 24 or 40, common in MobileNets' projections, had computed 32 or 48 columns in 6 x 16 tiles;
// here 12 accumulators take 3 B vectors and 4 broadcasts a k step, against 2 and 6. One-conv
// models alternating in one process (Zen 3): 144 -> 24 at 56x56, 2 threads, p10 0.350 -> 0.291
// ms; 96 -> 24 at 128x128, one thread, 1.75 -> 1.40. Rows past t.rows read the tile's last
// row again and are not stored.
//
// A's line for the tile 4 tiles on is prefetched once per group of 4 k: each of A's channel
// blocks is a stream of its own, read once (N fits one tile), and with 24 or 36 of them
// (96 or 144 input channels) the hardware's stream prefetcher falls behind. 144 -> 24 at
// 128x128 from memory, one thread, the product alone: 30-60 -> 52-80 GFLOP/s (interleaved,
// Zen 3); the one-conv model 3.56 -> 2.72 ms (p10); MobileNetV2 at 512, one thread, median
// 64.5 -> 62.1 ms.
constexpr int64_t kWide4PrefetchFloats = 64;
__attribute__((target("avx2,fma"))) void packedAvx2Wide4(const PackedTile& t) {
  const __m256 bias0 = biasAvx2(t, 0), bias1 = biasAvx2(t, 8), bias2 = biasAvx2(t, 16);
  __m256 c00 = bias0, c01 = bias1, c02 = bias2, c10 = bias0, c11 = bias1, c12 = bias2;
  __m256 c20 = bias0, c21 = bias1, c22 = bias2, c30 = bias0, c31 = bias1, c32 = bias2;
  const int64_t r1 = std::min(1, t.rows - 1) * 4, r2 = std::min(2, t.rows - 1) * 4, r3 = std::min(3, t.rows - 1) * 4;
  const int64_t next = t.b2 - t.b;  // the next panel, from b
  const float* a = t.a;
  const float* b = t.b;
#define TESSERA_STEP(j)                                                                      \
  {                                                                                          \
    const __m256 b0 = _mm256_loadu_ps(b + (j) * kNR), b1 = _mm256_loadu_ps(b + (j) * kNR + 8); \
    const __m256 b2 = _mm256_loadu_ps(b + next + (j) * kNR);                                 \
    if ((j) == 0) _mm_prefetch(reinterpret_cast<const char*>(a + kWide4PrefetchFloats), _MM_HINT_T0); \
    __m256 av = _mm256_broadcast_ss(a + (j));                                                \
    fmaAvx2(c00, av, b0); fmaAvx2(c01, av, b1); fmaAvx2(c02, av, b2);                        \
    av = _mm256_broadcast_ss(a + r1 + (j));                                                  \
    fmaAvx2(c10, av, b0); fmaAvx2(c11, av, b1); fmaAvx2(c12, av, b2);                        \
    av = _mm256_broadcast_ss(a + r2 + (j));                                                  \
    fmaAvx2(c20, av, b0); fmaAvx2(c21, av, b1); fmaAvx2(c22, av, b2);                        \
    av = _mm256_broadcast_ss(a + r3 + (j));                                                  \
    fmaAvx2(c30, av, b0); fmaAvx2(c31, av, b1); fmaAvx2(c32, av, b2);                        \
  }
  TESSERA_PACKED_K(TESSERA_STEP)
#undef TESSERA_STEP
  const __m256 out[12] = {c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32};
  storeRowsAvx2NC4<3>(out, t);
}

// The bias of columns [col0, col0 + 16) of a tile whose first `cols` are stored (zeros past
// them, and without a bias).
__attribute__((target("avx512f,avx512vl"), always_inline)) inline __m512 biasAvx512(const PackedTile& t, int col0) {
  if (!t.bias || col0 >= t.cols) return _mm512_setzero_ps();
  const int n = std::min(16, t.cols - col0);
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), t.bias + col0);
}

// NC4HW4 C: columns [col0, col0 + 16) of a tile of MR rows, row r's in v[r * step]. Four rows
// at a time are transposed by 128-bit lanes, so that each store is a block's 4 pixels x 4
// channels: 16 adjacent floats.
template <int MR>
__attribute__((target("avx512f,avx512vl"), always_inline)) inline void storeNC4Avx512(const __m512* v, int step,
                                                                                   int col0, const PackedTile& t) {
  const int blocks = std::min(4, (t.cols - col0) / 4);
#pragma GCC unroll 3
  for (int r0 = 0; r0 < MR; r0 += 4) {
    if (r0 >= t.rows || blocks <= 0) break;
    // (maskz: the plain shuffle's undefined pass-through trips GCC 12's uninitialised check)
    const __m512 r0v = v[r0 * step], r1v = v[(r0 + 1) * step], r2v = v[(r0 + 2) * step], r3v = v[(r0 + 3) * step];
    const __m512 lo01 = _mm512_maskz_shuffle_f32x4(0xFFFF, r0v, r1v, 0x44);  // lanes 0, 1 of rows 0, 1
    const __m512 hi01 = _mm512_maskz_shuffle_f32x4(0xFFFF, r0v, r1v, 0xEE);  // lanes 2, 3
    const __m512 lo23 = _mm512_maskz_shuffle_f32x4(0xFFFF, r2v, r3v, 0x44);
    const __m512 hi23 = _mm512_maskz_shuffle_f32x4(0xFFFF, r2v, r3v, 0xEE);
    const __m512 block[4] = {
        _mm512_maskz_shuffle_f32x4(0xFFFF, lo01, lo23, 0x88), _mm512_maskz_shuffle_f32x4(0xFFFF, lo01, lo23, 0xDD),
        _mm512_maskz_shuffle_f32x4(0xFFFF, hi01, hi23, 0x88), _mm512_maskz_shuffle_f32x4(0xFFFF, hi01, hi23, 0xDD)};
    const int rows = std::min(4, t.rows - r0);
    const __mmask16 m = static_cast<__mmask16>((1u << (4 * rows)) - 1);
    float* c = &nc4At(t, r0, col0);
    for (int b = 0; b < blocks; ++b, c += t.cBlockStride) {
      __m512 sum = t.accumulate ? _mm512_add_ps(block[b], _mm512_maskz_loadu_ps(m, c)) : block[b];
      if (t.clamp && t.clamp->upper) sum = _mm512_maskz_min_ps(0xFFFF, sum, _mm512_set1_ps(t.clamp->hi));
      if (t.clamp && t.clamp->lower) sum = _mm512_maskz_max_ps(0xFFFF, sum, _mm512_set1_ps(t.clamp->lo));
      _mm512_mask_storeu_ps(c, m, sum);
    }
  }
}

// MR x 16: one panel (MR 12; 8 and 4 for a block's last rows, ColumnSplit's tasks of few).
template <int MR>
__attribute__((target("avx512f,avx512vl,fma"))) void packedAvx512(const PackedTile& t) {
  __m512 acc[MR];
  const __m512 bias = biasAvx512(t, 0);
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) acc[r] = bias;
  const float* a = t.a;
  const float* b = t.b;
#define TESSERA_STEP(j)                                                                      \
  {                                                                                          \
    const __m512 b0 = _mm512_loadu_ps(b + (j) * kNR);                                        \
    _Pragma("GCC unroll 12") for (int r = 0; r < MR; ++r)                                    \
      acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * 4 + (j)]), b0, acc[r]);                 \
  }
  TESSERA_PACKED_K(TESSERA_STEP)
#undef TESSERA_STEP
  if (t.cBlockStride) return storeNC4Avx512<MR>(acc, 1, 0, t);
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) {
    if (r >= t.rows) break;
    float* c = t.c + r * t.ldc;
    _mm512_storeu_ps(c, t.accumulate ? _mm512_add_ps(acc[r], _mm512_loadu_ps(c)) : acc[r]);
  }
}

// MR x 32: two panels, each broadcast A value feeding two multiply-adds (2 MR accumulators).
// A block's last 1-8 rows take MR 4 or 8: a Winograd GEMM over a 7x7 plane's 16 tiles had
// computed 24 rows for 16.
template <int MR>
__attribute__((target("avx512f,avx512vl,fma"))) void packedAvx512Pair(const PackedTile& t) {
  __m512 acc[2 * MR];
  const __m512 bias0 = biasAvx512(t, 0), bias1 = biasAvx512(t, kNR);
#pragma GCC unroll 24
  for (int r = 0; r < 2 * MR; ++r) acc[r] = r % 2 ? bias1 : bias0;
  const float* a = t.a;
  const float* b = t.b;
  const int64_t second = t.b2 - t.b;  // B's second panel, as an offset from b
#define TESSERA_STEP(j)                                                                          \
  {                                                                                              \
    const __m512 b0 = _mm512_loadu_ps(b + (j) * kNR), b1 = _mm512_loadu_ps(b + second + (j) * kNR); \
    _mm_prefetch(reinterpret_cast<const char*>(b + (j) * kNR + kPrefetchFloats), _MM_HINT_T0);   \
    _mm_prefetch(reinterpret_cast<const char*>(b + second + (j) * kNR + kPrefetchFloats), _MM_HINT_T0); \
    _Pragma("GCC unroll 12") for (int r = 0; r < MR; ++r) {                                      \
      const __m512 av = _mm512_set1_ps(a[r * 4 + (j)]);                                          \
      acc[2 * r] = _mm512_fmadd_ps(av, b0, acc[2 * r]);                                          \
      acc[2 * r + 1] = _mm512_fmadd_ps(av, b1, acc[2 * r + 1]);                                  \
    }                                                                                            \
  }
  TESSERA_PACKED_K(TESSERA_STEP)
#undef TESSERA_STEP
  if (t.cBlockStride) {
    storeNC4Avx512<MR>(acc, 2, 0, t);
    return storeNC4Avx512<MR>(acc + 1, 2, kNR, t);
  }
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) {
    if (r >= t.rows) break;
    float* c = t.c + r * t.ldc;
    _mm512_storeu_ps(c, t.accumulate ? _mm512_add_ps(acc[2 * r], _mm512_loadu_ps(c)) : acc[2 * r]);
    _mm512_storeu_ps(c + kNR, t.accumulate ? _mm512_add_ps(acc[2 * r + 1], _mm512_loadu_ps(c + kNR)) : acc[2 * r + 1]);
  }
}
#endif
#undef TESSERA_PACKED_K

KernelSet chooseKernels() {
#ifdef TESSERA_GEMM_X86
  switch (cpuIsa()) {
    case CpuIsa::kAvx512: return {tileAvx512, 12, tileAvx2Narrow, 12, tileAvx512Wide, 8, rowAvx512};
    case CpuIsa::kAvx2: return {tileAvx2, 6, tileAvx2Narrow, 12, tileAvx2Wide, 4, rowAvx2};
    case CpuIsa::kGeneric: break;
  }
#endif
  return {tilePortable, 4, nullptr, 0, nullptr, 0, nullptr};
}

const KernelSet& kernels() {
  static const KernelSet k = chooseKernels();
  return k;
}

// Element (m, n) of C, row-major or NC4HW4.
inline float* cAt(const GemmArgs& g, int64_t m, int64_t n) {
  return g.cBlockStride ? g.C + (n / 4) * g.cBlockStride + m * 4 + n % 4 : g.C + m * g.ldc + n;
}

// What column n's sums start from when C is not accumulated: the bias (NC4HW4 C) or 0.
inline float sumStart(const GemmArgs& g, int64_t n) { return g.cBlockStride && g.bias ? g.bias[n] : 0.f; }

// C (+)= a rows x cols scratch tile at (m, n) (plus the bias, when C is NC4HW4 and not
// accumulated): where a kernel could not write C whole (a partial width or height, or an
// NC4HW4 C the kernel cannot store).
void storeScratch(const GemmArgs& g, const float* tile, int64_t tileStride, int rows, int cols, int64_t m, int64_t n,
                  bool accumulate, const RegisterClamp* clamp) {
  if (g.cBlockStride && n % 4 == 0) {
    // NC4HW4 C: column group by column group, each row's 4 values one 16-byte pixel of a
    // block (addressed per element, this had taken longer than the product itself for a
    // 1x1 conv 32 -> 48 at 160x160).
    for (int j = 0; j < cols; j += 4) {
      const int width = std::min(4, cols - j);
      float start[4] = {};
      for (int q = 0; q < width; ++q) start[q] = sumStart(g, n + j + q);
      float* block = g.C + ((n + j) / 4) * g.cBlockStride + m * 4;
      for (int r = 0; r < rows; ++r) {
        const float* src = tile + r * tileStride + j;
        float* dst = block + r * 4;
        if (width == 4) {  // a constant count: one 16-byte operation
          for (int q = 0; q < 4; ++q) dst[q] = (accumulate ? dst[q] : start[q]) + src[q];
        } else {
          for (int q = 0; q < width; ++q) dst[q] = (accumulate ? dst[q] : start[q]) + src[q];
        }
        if (clamp)
          for (int q = 0; q < width; ++q) dst[q] = clamp->apply(dst[q]);
      }
    }
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const float* src = tile + r * tileStride;
    for (int j = 0; j < cols; ++j) {
      float& dst = *cAt(g, m + r, n + j);
      const float start = accumulate ? dst : sumStart(g, n + j);
      dst = start + src[j];
      if (clamp) dst = clamp->apply(dst);
    }
  }
}

struct PackedKernelSet {
  PackedKernel single;  // mr x kNR
  PackedKernel pair;    // mr x 2 kNR, or null
  int mr;               // rows per packed A panel
  // For a panel of at most 4 or 8 rows: kernels of that height (or null: single and pair).
  PackedKernel single4 = nullptr, pair4 = nullptr, single8 = nullptr, pair8 = nullptr;
  PackedKernel single2 = nullptr;  // a panel of at most 2 rows, one panel wide (or null)
  // 4 x 24 for an NC4HW4 A read in place into an NC4HW4 C, for a product's last 17..24
  // columns (or null).
  PackedKernel wide4 = nullptr;
};

PackedKernelSet choosePackedKernels() {
#ifdef TESSERA_GEMM_X86
  switch (cpuIsa()) {
    case CpuIsa::kAvx512:
      return {packedAvx512<12>, packedAvx512Pair<12>, 12, packedAvx512<4>, packedAvx512Pair<4>, packedAvx512<8>,
              packedAvx512Pair<8>};
    case CpuIsa::kAvx2: {
      PackedKernelSet k{packedAvx2<6>, nullptr, 6, packedAvx2<4>};
      k.single2 = packedAvx2<2>;
      k.wide4 = packedAvx2Wide4;
      return k;
    }
    case CpuIsa::kGeneric: break;
  }
#endif
  return {packedPortable, nullptr, 4};
}

const PackedKernelSet& packedKernels() {
  static const PackedKernelSet k = choosePackedKernels();
  return k;
}

// Floats of one packed A panel of `mr` rows over all of K (gemmPacked's pre-packed A).
inline int64_t wholePanelFloats(int64_t K, int mr) { return (K + 3) / 4 * 4 * mr; }

// Packs rows [m, m + rows) and k in [k0, k0 + kb) of A into one panel of `mr` rows (the layout
// of PackedTile::a). k0 is a multiple of 4; A(m, k) = a[m * rowStride + (k / 4) * groupStride
// + (k % 4) * kStep].
void packAPanel(const float* a, int64_t rowStride, int64_t kStep, int64_t groupStride, int64_t m, int rows,
                int mr, int64_t k0, int64_t kb, float* dst) {
  const int64_t groups = (kb + 3) / 4;
  for (int64_t gi = 0; gi < groups; ++gi, dst += mr * 4) {
    const int n = static_cast<int>(std::min<int64_t>(4, kb - gi * 4));  // k of this group
    const float* src = a + (k0 / 4 + gi) * groupStride + m * rowStride;
    if (rowStride == 4 && kStep == 1 && rows == mr && n == 4) {
      std::memcpy(dst, src, mr * 4 * sizeof(float));  // an NC4HW4 block: the panel's layout already
      continue;
    }
    for (int r = 0; r < mr; ++r) {
      float* d = dst + r * 4;
      if (r >= rows) {
        d[0] = d[1] = d[2] = d[3] = 0.f;
        continue;
      }
      const float* row = src + r * rowStride;
      if (kStep == 1 && n == 4) {
        std::memcpy(d, row, 4 * sizeof(float));  // row-major A and NC4HW4 blocks: 4 adjacent k
        continue;
      }
      for (int j = 0; j < 4; ++j) d[j] = j < n ? row[j * kStep] : 0.f;
    }
  }
}

// Rows [m0, m0 + mb) x columns [nBegin, nEnd) for the K chunk [k0, k0 + kb), A packed first.
// An NC4HW4 A (rows 4 floats apart, k adjacent) already has a panel's layout: its whole
// panels are read in place, only a last partial one is packed.
void packedBlock(const GemmArgs& g, int64_t rowStride, int64_t kStep, int64_t groupStride, int64_t k0, int64_t kb,
                 int64_t m0, int64_t mb, int64_t nBegin, int64_t nEnd, bool accumulate, float* aPack) {
  const PackedKernelSet& ks = packedKernels();
  const int mr = ks.mr;
  const int64_t groupFloats = (kb + 3) / 4 * 4;  // of one row of a panel
  const bool nc4A = rowStride == 4 && kStep == 1;
  // Row tiles of mr rows, but on AVX2 (the set with a 2-row kernel), where A is packed here and
  // the block would end in a tile of 1 or 2 rows, its last 7 or 8 rows go in tiles of 4 (and 3
  // or 4): a tile of 2 rows streams all of B's panel for a third of the 6-row tile's
  // multiply-adds (a batch-8 LSTM's step products, 8 rows: 6 + 2 -> 4 + 4, 12% faster a run).
  // AVX-512's 12-row tiles are left as they were (unmeasured on such blocks).
  const int64_t rest = mb % mr;
  const int64_t foursFrom = !g.aPacked && !nc4A && ks.single2 && ks.single4 && mb > mr && rest > 0 && rest <= 2
                                ? mb - rest - mr : mb;
  auto height = [&](int64_t m) { return m < foursFrom ? mr : 4; };
  auto packedAt = [&](int64_t m) { return aPack + m * groupFloats; };  // the packed panel of the tile at row m
  // A panel's first float and group stride.
  auto panelA = [&](int64_t m, int rows) -> std::pair<const float*, int64_t> {
    if (g.aPacked) return {g.aPacked + (m0 + m) / mr * wholePanelFloats(g.K, mr) + k0 * mr, mr * 4};
    if (nc4A && rows == mr) return {g.A + k0 / 4 * groupStride + (m0 + m) * 4, groupStride};
    return {packedAt(m), height(m) * 4};
  };
  for (int64_t m = 0; m < mb && !g.aPacked; m += height(m)) {
    const int rows = static_cast<int>(std::min<int64_t>(height(m), mb - m));
    if (!nc4A || rows < mr)
      packAPanel(g.A, rowStride, kStep, groupStride, m0 + m, rows, height(m), k0, kb, packedAt(m));
  }
  const float* bias = g.cBlockStride && !accumulate ? g.bias : nullptr;
  // The conv's clamp once the sums are whole: in the last K chunk only.
  const RegisterClamp* clamp = g.cBlockStride && g.clamp.any() && k0 + kb == g.K ? &g.clamp : nullptr;
  constexpr int kScratchWidth = 2 * kNR;
  for (int64_t n0 = nBegin; n0 < nEnd;) {
    const int64_t left = nEnd - n0;
    const float* bPanel = g.packedB + (n0 / kNR) * g.K * kNR + k0 * kNR;
    if (ks.wide4 && nc4A && g.cBlockStride && left > kNR && left <= kNR + 8) {
      // The last 17..24 columns, 4 rows a tile, A in place.
      for (int64_t m = 0; m < mb; m += 4) {
        const int rows = static_cast<int>(std::min<int64_t>(4, mb - m));
        ks.wide4(PackedTile{g.A + k0 / 4 * groupStride + (m0 + m) * 4, groupStride, bPanel, bPanel + g.K * kNR, kb,
                            cAt(g, m0 + m, n0), 0, accumulate, rows, g.cBlockStride, static_cast<int>(left),
                            bias ? bias + n0 : nullptr, clamp});
      }
      break;
    }
    const bool pair = ks.pair && left > kNR;
    const int width = pair ? 2 * kNR : kNR;
    const int cols = static_cast<int>(std::min<int64_t>(width, left));
    for (int64_t m = 0; m < mb; m += height(m)) {
      const int rows = static_cast<int>(std::min<int64_t>(height(m), mb - m));
      PackedKernel kernel = pair ? ks.pair : ks.single;
      if (rows <= 2 && ks.single2 && !pair) kernel = ks.single2;
      else if (rows <= 4 && ks.single4) kernel = pair ? ks.pair4 : ks.single4;
      else if (rows <= 8 && ks.single8) kernel = pair ? ks.pair8 : ks.single8;
      const auto [a, aStride] = panelA(m, rows);
      if (g.cBlockStride) {  // stored whole blocks at a time, any width
        kernel(PackedTile{a, aStride, bPanel, bPanel + g.K * kNR, kb, cAt(g, m0 + m, n0), 0, accumulate, rows,
                          g.cBlockStride, cols, bias ? bias + n0 : nullptr, clamp});
        continue;
      }
      float* c = g.C + (m0 + m) * g.ldc + n0;
      if (cols == width) {
        kernel(PackedTile{a, aStride, bPanel, bPanel + g.K * kNR, kb, c, g.ldc, accumulate, rows, 0, cols, nullptr,
                          nullptr});
        continue;
      }
      // A partial width (the panels' zero padding): through a scratch tile.
      alignas(64) float tile[kMaxMR * kScratchWidth];
      kernel(PackedTile{a, aStride, bPanel, bPanel + g.K * kNR, kb, tile, kScratchWidth, false, rows, 0, cols, nullptr,
                        nullptr});
      storeScratch(g, tile, kScratchWidth, rows, cols, m0 + m, n0, accumulate, nullptr);
    }
    n0 += width;
  }
}

// Runs `kernel` on rows [m, m+rows) x `cols` columns of panel `bPanel`; a partial tile (or an
// NC4HW4 C) goes through a scratch tile so the kernel may write whole widths.
void runTile(TileKernel kernel, int width, const GemmArgs& g, const float* a, int64_t rowStride, int64_t kStep,
             int64_t groupStride, int rows, int fullRows, const float* bPanel, int64_t kb, int64_t m, int64_t n, int cols,
             bool accumulate, const RegisterClamp* clamp) {
  const float* bNext = width > kNR ? bPanel + g.K * kNR : nullptr;  // the 24-wide kernel's second panel
  if (rows == fullRows && cols == width && !g.cBlockStride) {
    kernel(Tile{a, rowStride, kStep, groupStride, rows, bPanel, bNext, kb, g.C + m * g.ldc + n, g.ldc, accumulate});
    return;
  }
  constexpr int kScratchWidth = kNR + 8;
  alignas(64) float tile[kMaxMR * kScratchWidth];
  kernel(Tile{a, rowStride, kStep, groupStride, rows, bPanel, bNext, kb, tile, kScratchWidth, false});
  storeScratch(g, tile, kScratchWidth, rows, cols, m, n, accumulate, clamp);
}

void packedProduct(const GemmArgs& g, int64_t rowStride, int64_t kStep, int64_t groupStride, int64_t mBegin,
                   int64_t mEnd, int64_t nBegin, int64_t nEnd) {
  // K up to kWholeK in one chunk: B's panel pair (up to 128 KB) then streams from L2 rather
  // than staying in L1, which the L2 sustains at 128 bytes per 24 multiply-adds, and C is
  // written once instead of written and then read back for the next chunk (the MatMul
  // 384x384 by 384x1536: 2.36 MB of C; interleaved, its p25 op time 1.85 -> 1.64 ms; BERT's
  // 128 x 768 by 768 x 3072 with 1024 rather than 512, 2 threads: 2.02 -> 1.84 ms).
  constexpr int64_t kWholeK = 1024;
  alignas(64) static thread_local float aPack[kMC * kWholeK];  // one block of A, packed (384 KB)
  // Past kWholeK, even chunks of at most kWholeK (multiples of 4): in chunks of kKC, C had been
  // written and read back 12 times for K = 3072 (BERT's MLP down-projection, 128 x 3072 by
  // 3072 x 768: 2.37 -> 2.24 ms; ResNet's 256 -> 512 stride-2 3x3 at 14x14, K = 2304: 0.461 ->
  // 0.409 ms; 2 threads, interleaved).
  const int64_t chunks = (g.K + kWholeK - 1) / kWholeK;
  const int64_t kc = chunks == 1 ? g.K : ((g.K + chunks - 1) / chunks + 3) / 4 * 4;
  for (int64_t k0 = 0; k0 < g.K; k0 += kc) {
    const int64_t kb = std::min(kc, g.K - k0);
    for (int64_t m0 = mBegin; m0 < mEnd; m0 += kMC)
      packedBlock(g, rowStride, kStep, groupStride, k0, kb, m0, std::min(kMC, mEnd - m0), nBegin, nEnd,
                  g.accumulate || k0 > 0, aPack);
  }
}

}  // namespace

int gemmPanelWidth() { return kNR; }

int gemmTileRows() { return packedKernels().mr; }

int64_t gemmPackedBSize(int64_t K, int64_t N) { return ((N + kNR - 1) / kNR) * kNR * K; }

#ifdef TESSERA_GEMM_X86
// Rows [0, 4 * (K / 4)) of a whole panel from B stored [N, K] (transB): 4 x 4 blocks
// transposed in SSE registers. Element by element, the packing of an attention's K^T (48
// matrices of 64 x 128 a run) had taken a tenth of its product's time.
void packTransposedPanel(const float* B, int64_t ldb, int64_t K, float* dst) {
  for (int64_t k = 0; k + 4 <= K; k += 4)
    for (int c = 0; c < kNR; c += 4) transpose4x4(B + c * ldb + k, ldb, dst + k * kNR + c, kNR);
}
#endif

void gemmPackB(int64_t K, int64_t N, const float* B, int64_t ldb, bool transB, float* packed, float scale) {
  const int64_t panels = (N + kNR - 1) / kNR;
  for (int64_t p = 0; p < panels; ++p) {
    float* dst = packed + p * K * kNR;
    const int64_t n0 = p * kNR;
    const int cols = static_cast<int>(std::min<int64_t>(kNR, N - n0));
    int64_t kDone = 0;
#ifdef TESSERA_GEMM_X86
    if (transB && cols == kNR) {
      packTransposedPanel(B + n0 * ldb, ldb, K, dst);
      kDone = K / 4 * 4;
    }
#endif
    for (int64_t k = kDone; k < K; ++k) {
      float* row = dst + k * kNR;
      if (!transB) {
        const float* src = B + k * ldb + n0;
        for (int c = 0; c < cols; ++c) row[c] = src[c];
      } else {
        for (int c = 0; c < cols; ++c) row[c] = B[(n0 + c) * ldb + k];
      }
      for (int c = cols; c < kNR; ++c) row[c] = 0.f;
    }
    if (scale != 1.f)  // the panel just written, still in cache
      for (int64_t i = 0; i < K * kNR; ++i) dst[i] *= scale;
  }
}

std::string gemmScaleKey(float scale) {
  if (scale == 1.f) return "";
  uint32_t bits = 0;
  std::memcpy(&bits, &scale, sizeof bits);
  return " scale " + std::to_string(bits);
}

void gemmPackedTile(const GemmArgs& g, int64_t mBegin, int64_t mEnd, int64_t nBegin, int64_t nEnd) {
  if (mBegin >= mEnd || nBegin >= nEnd) return;
  if (g.K == 0) {  // empty sum: C = 0 or the bias (or unchanged when accumulating)
    if (!g.accumulate)
      for (int64_t m = mBegin; m < mEnd; ++m)
        for (int64_t n = nBegin; n < nEnd; ++n)
          *cAt(g, m, n) = g.cBlockStride && g.clamp.any() ? g.clamp.apply(sumStart(g, n)) : sumStart(g, n);
    return;
  }
  const KernelSet& ks = kernels();
  // A(m, k) = a[m * rowStride + (k / 4) * groupStride + (k % 4) * kStep].
  const int64_t rowStride = g.transA ? 1 : g.lda, kStep = g.transA ? g.lda : 1;
  const int64_t groupStride = g.aBlockStride ? g.aBlockStride : 4 * kStep;
  // Packing A pays once the block is swept by more than two panels (and has rows to share).
  // An NC4HW4 A into an NC4HW4 C always goes there: A's panels are read in place and the
  // packed kernels store C's blocks themselves, where the in-place tile kernels go through
  // a scratch tile.
  const bool nc4 = g.cBlockStride && rowStride == 4 && kStep == 1;
  if ((nEnd - nBegin > 2 * kNR || nc4) && mEnd - mBegin > 1)
    return packedProduct(g, rowStride, kStep, groupStride, mBegin, mEnd, nBegin, nEnd);
  for (int64_t k0 = 0; k0 < g.K; k0 += kKC) {
    const int64_t kb = std::min(kKC, g.K - k0);
    const bool accumulate = g.accumulate || k0 > 0;
    const RegisterClamp* clamp = g.cBlockStride && g.clamp.any() && k0 + kb == g.K ? &g.clamp : nullptr;
    for (int64_t m0 = mBegin; m0 < mEnd; m0 += kMC) {
      const int64_t mb = std::min(kMC, mEnd - m0);
      for (int64_t n0 = nBegin; n0 < nEnd;) {
        const int64_t left = nEnd - n0;
        // The last 17..24 columns in one pass where there is a kernel for it; a last panel
        // with at most 8 columns in a narrow pass; otherwise whole panels. A lone row of A
        // takes the one-row kernel for every panel.
        const bool lone = ks.row && mb == 1;
        const bool wide = !lone && ks.wide && left > kNR && left <= kNR + 8;
        const bool narrow = !lone && !wide && ks.narrow && left <= 8;
        const int width = wide ? kNR + 8 : (narrow ? 8 : kNR);
        const int cols = static_cast<int>(std::min<int64_t>(wide ? left : kNR, left));
        const TileKernel kernel = lone ? ks.row : wide ? ks.wide : (narrow ? ks.narrow : ks.full);
        const int mr = lone ? 1 : wide ? ks.wideMR : (narrow ? ks.narrowMR : ks.mr);
        const float* bPanel = g.packedB + (n0 / kNR) * g.K * kNR + k0 * kNR;
        for (int64_t m = m0; m < m0 + mb; m += mr) {
          const int rows = static_cast<int>(std::min<int64_t>(mr, m0 + mb - m));
          // k0 is a multiple of 4 (kKC is).
          runTile(kernel, width, g, g.A + m * rowStride + k0 / 4 * groupStride, rowStride, kStep, groupStride, rows,
                  mr, bPanel, kb, m, n0, cols, accumulate, clamp);
        }
        n0 += wide ? left : kNR;
      }
    }
  }
}

namespace {

// How gemmPacked splits a product over `threads` threads: a grid of row chunks x column
// chunks (one chunk of each: on the calling thread alone).
struct GemmSplit {
  int64_t mChunks = 1, nChunks = 1, rowPanels = 0, colPanels = 0;
  bool single = true;  // too small to split, or one thread
  bool packAOnce = false;  // several column chunks would each pack all their rows of A
};

GemmSplit gemmSplit(const GemmArgs& g, int threads) {
  const int mr = kernels().mr;
  GemmSplit s;
  s.rowPanels = (g.M + mr - 1) / mr;
  s.colPanels = (g.N + kNR - 1) / kNR;
  const int64_t work = g.M * g.N * std::max<int64_t>(g.K, 1);
  if (threads <= 1 || work < (int64_t(1) << 18)) return s;
  s.single = false;
  // About kTasksPerThread tasks per thread, claimed one at a time: rows first (a column chunk
  // packs its rows of A again), but each row chunk at least kMinChunkPanels register tiles
  // tall, since each reads all of B. BERT's 128 x 768 by 768 x 3072 had been 8 row chunks of
  // 12-24 rows, each streaming the 9.4 MB of B from memory for so few rows (2 threads: 1.5x
  // one thread's speed). Column chunks first instead made the 384 x 384 by 384 x 1536
  // micro-benchmark 17% slower.
  constexpr int64_t kTasksPerThread = 4;
  constexpr int64_t kMinChunkPanels = 4;
  constexpr int64_t kLargeB = 4 << 20;
  const int64_t wanted = kTasksPerThread * threads;
  s.mChunks = std::max<int64_t>(1, std::min<int64_t>(wanted, s.rowPanels / kMinChunkPanels));
  // A B past kLargeB bytes comes from memory in a whole net (its weights outgrow the last-level
  // cache), and each row chunk reads all of it, each column chunk all of A: there the split
  // that reads the fewest bytes in all. BERT-base's 128 x 768 by 768 x 3072 had read its
  // 9.4 MB of B five times; now 8 column chunks (2 layers, 2 threads, AVX2 Zen 3, runs
  // alternating in one process: 41.5 -> 38.0 ms; 4 MB or 1 MB as the limit, the same).
  const int64_t aBytes = g.M * g.K * 4, bBytes = g.K * g.N * 4;
  auto splitBytes = [&](int64_t m) {
    return m * bBytes + std::min<int64_t>((wanted + m - 1) / m, s.colPanels) * aBytes;
  };
  if (bBytes > kLargeB) {
    int64_t best = 1;
    for (int64_t m = 2; m <= s.mChunks; ++m)
      if (splitBytes(m) < splitBytes(best)) best = m;
    s.mChunks = best;
  }
  s.nChunks = std::min<int64_t>((wanted + s.mChunks - 1) / s.mChunks, s.colPanels);
  // Column chunks of more than two panels pack their rows of A (gemmPackedTile), each chunk
  // again: A packed once before them instead, where A is not an NC4HW4 tensor read in place
  // (its panels need no packing), its panels are the packed kernels' height, and the packed
  // copy stays under kMaxPackedABytes (the scratch is held for the Session's life: a copy of
  // a large A would double its memory for a few percent).
  constexpr int64_t kMaxPackedABytes = 16 << 20;
  s.packAOnce = s.nChunks > 1 && s.colPanels / s.nChunks > 2 && g.M > 1 && !g.aBlockStride &&
                packedKernels().mr == mr && s.rowPanels * wholePanelFloats(g.K, mr) * 4 <= kMaxPackedABytes;
  return s;
}

}  // namespace

int64_t gemmAScratchFloats(const GemmArgs& g, int threads) {
  const GemmSplit s = gemmSplit(g, threads);
  return s.single || !s.packAOnce ? 0 : s.rowPanels * wholePanelFloats(g.K, kernels().mr);
}

void gemmPacked(ThreadPool& pool, const GemmArgs& g) {
  const int threads = pool.threads();
  const int mr = kernels().mr;
  const GemmSplit s = gemmSplit(g, threads);
  if (s.single) {
    gemmPackedTile(g, 0, g.M, 0, g.N);
    if (g.finish) g.finish(g.finishContext, 0, g.M, 0, g.N);
    return;
  }
  GemmArgs tasks = g;
  if (s.packAOnce && g.aScratch) {
    // BERT-base's MLP down-projection, 128 x 3072 by 3072 x 768, in 8 column chunks had packed
    // its 1.5 MB of A 8 times (2 threads, AVX2 Zen 3, runs alternating in one process: medians
    // 4-10% lower in each of 5 runs, 3.92 -> 3.55 ms in the quietest; the 2-layer encoder
    // 27.5 -> 25.2 ms there, 3-8% lower in each run).
    const int64_t rowStride = g.transA ? 1 : g.lda, kStep = g.transA ? g.lda : 1;
    const int64_t panelFloats = wholePanelFloats(g.K, mr);
    runClaimedTasks(pool, s.rowPanels, threads, [&](int64_t p, int64_t) {
      const int rows = static_cast<int>(std::min<int64_t>(mr, g.M - p * mr));
      packAPanel(g.A, rowStride, kStep, 4 * kStep, p * mr, rows, mr, 0, g.K, g.aScratch + p * panelFloats);
    });
    tasks.aPacked = g.aScratch;
  }
  // Even shares of whole panels: ceil(panels / chunks) each had left the last chunk short
  // (a 1x1 conv at 28x28: 7 chunks of 9 row panels and one of 2, so one thread did 12% more).
  runClaimedTasks(pool, s.mChunks * s.nChunks, threads, [&](int64_t t, int64_t) {
    const int64_t mi = t / s.nChunks, ni = t % s.nChunks;
    const int64_t m0 = s.rowPanels * mi / s.mChunks * mr, m1 = std::min(g.M, s.rowPanels * (mi + 1) / s.mChunks * mr);
    const int64_t n0 = s.colPanels * ni / s.nChunks * kNR, n1 = std::min(g.N, s.colPanels * (ni + 1) / s.nChunks * kNR);
    gemmPackedTile(tasks, m0, m1, n0, n1);
    if (g.finish) g.finish(g.finishContext, m0, m1, n0, n1);
  });
}

}  // namespace tessera
