// Single-precision row-major GEMM shared by Conv, ConvTranspose, Gemm and MatMul.
//
// B (K x N) is packed once into column panels of gemmPanelWidth() columns (weights: at
// resize time); A is read where it lies. The inner kernels follow the instruction set of
// cpuIsa() (AVX-512, AVX2+FMA or portable), chosen once per process.
#pragma once
#include <cstdint>
#include <string>

#include "backends/cpu/RegisterClamp.hpp"

namespace tessera {

class ThreadPool;

// Columns per packed-B panel.
int gemmPanelWidth();
// Rows of A per register tile of the kernels that pack A (a product's rows are worked in
// tiles of this height; a last partial tile costs a whole one).
int gemmTileRows();
// Floats needed to hold B (K x N) packed.
int64_t gemmPackedBSize(int64_t K, int64_t N);
// Packs B, whose element (k, n) is transB ? B[n*ldb + k] : B[k*ldb + n], times `scale`: a
// product's alpha goes into its packed B, so the kernels store their sums as they are.
void gemmPackB(int64_t K, int64_t N, const float* B, int64_t ldb, bool transB, float* packed, float scale = 1.f);
// What a packing key (PackedConstants) adds for a B packed times `scale`: "" for 1, else the
// scale's exact bits.
std::string gemmScaleKey(float scale);

struct GemmArgs {
  int64_t M = 0, N = 0, K = 0;
  const float* A = nullptr;  // element (m, k) = transA ? A[k*lda + m] : A[m*lda + k]
  int64_t lda = 0;
  bool transA = false;
  // Nonzero: A is an NC4HW4 activation read in place, element (m, k) =
  // A[m*lda + (k/4)*aBlockStride + k%4] (lda = 4, aBlockStride = the channel-block stride;
  // K a multiple of 4, transA false).
  int64_t aBlockStride = 0;
  const float* packedB = nullptr;  // from gemmPackB(K, N, ...)
  // Optional, gemmPacked: gemmAScratchFloats(*this, threads) floats, where A is packed once for
  // all of the column chunks that would each pack it again (null: each packs its own).
  float* aScratch = nullptr;
  // A packed already, in panels of gemmTileRows() rows over all of K: gemmPacked sets it on
  // its tasks' copy of the arguments (callers leave it null).
  const float* aPacked = nullptr;
  float* C = nullptr;              // element (m, n) = C[m*ldc + n]
  int64_t ldc = 0;
  // Nonzero: C is an NC4HW4 activation written in place, element (m, n) =
  // C[(n/4)*cBlockStride + m*4 + n%4] (ldc unused; N and the column range of each call are
  // multiples of 4). A conv's product lands in its output with no scatter after.
  int64_t cBlockStride = 0;
  // Optional, NC4HW4 C only: C = A*B + bias[n] (accumulate: C += A*B, bias unused).
  const float* bias = nullptr;
  bool accumulate = false;  // C = A*B + C instead of C = A*B (alpha: gemmPackB's scale)
  // NC4HW4 C only: a conv's Relu or Clip, applied to the finished sums as they are stored.
  RegisterClamp clamp;
  // Optional, gemmPacked: called with `finishContext` on each block of C, rows [m0, m1) and
  // columns [n0, n1), once a task has written it, while it is in cache (MatMul's bias, Z and
  // activation; a pass over the whole of C after the product had read it back from L3).
  void (*finish)(const void* finishContext, int64_t m0, int64_t m1, int64_t n0, int64_t n1) = nullptr;
  const void* finishContext = nullptr;
};

// Computes rows [mBegin, mEnd) and columns [nBegin, nEnd) of C on the calling thread.
// nBegin must be a multiple of gemmPanelWidth().
void gemmPackedTile(const GemmArgs& g, int64_t mBegin, int64_t mEnd, int64_t nBegin, int64_t nEnd);
// Floats of GemmArgs::aScratch that gemmPacked would use for this product (its sizes, A's
// layout) on `threads` threads: 0 where it splits the columns into one chunk or reads A in
// place.
int64_t gemmAScratchFloats(const GemmArgs& g, int threads);
// The whole product, split over the pool's threads (by rows, or by columns when M is small),
// each block of C then finished (GemmArgs::finish).
void gemmPacked(ThreadPool& pool, const GemmArgs& g);

}  // namespace tessera
