#include "backends/cpu/ConvWinograd.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/ColumnSplit.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "backends/cpu/Gemm.hpp"
#include "tessera/ThreadPool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_WINOGRAD_X86 1
#endif

namespace tessera {
namespace {

constexpr int kPositions = 16;  // a 4x4 transformed tile
// Output tiles per task: the GEMMs' rows, a multiple of every kernel's register rows (12
// AVX-512, 6 AVX2, 4 portable); V for 96 channels is 16 x 48 x 96 floats, 288 KiB: L2.
constexpr int64_t kTiles = 48;

// V = (Bt d B) of a 4x4 patch d, Bt = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], position
// i * 4 + j stored at out + (i * 4 + j) * positionStride. Vec is a vector of 4, 8 or 16 floats
// (Float4, __m256, __m512: GCC and Clang give all three + and -): one pixel's 4 channels, or
// two / four tiles of them side by side.
template <typename Vec>
__attribute__((always_inline)) inline void storeTransformed(const Vec (&d)[4][4], float* out,
                                                            int64_t positionStride) {
  Vec s[4][4];  // Bt d
  for (int j = 0; j < 4; ++j) {
    s[0][j] = d[0][j] - d[2][j];
    s[1][j] = d[1][j] + d[2][j];
    s[2][j] = d[2][j] - d[1][j];
    s[3][j] = d[1][j] - d[3][j];
  }
  for (int i = 0; i < 4; ++i) {  // (Bt d) B
    const Vec row[4] = {s[i][0] - s[i][2], s[i][1] + s[i][2], s[i][2] - s[i][1], s[i][1] - s[i][3]};
    for (int j = 0; j < 4; ++j) std::memcpy(out + (i * 4 + j) * positionStride, &row[j], sizeof(Vec));
  }
}

#ifdef TESSERA_WINOGRAD_X86
// V = Bt d B for four horizontally adjacent tiles of one channel block, a 512-bit vector
// holding the four tiles' 4 channels: x at the first tile's patch corner (row stride W
// pixels), v at (position 0, this block, the first tile) with `positionStride` floats
// between positions. Patch column j of tile k is pixel 2k + j: two loads of 4 pixels and a
// 128-bit lane shuffle give one column for all four tiles (pixels 0..9 are read, no more;
// maskz: the plain shuffle's undefined pass-through trips GCC 12's uninitialised check).
// Dilated (dh, dw): the patch's rows are dh image rows apart and its columns dw pixels, so
// column j of tile k is pixel dw (2k + j), four 128-bit loads.
__attribute__((target("avx512f"))) void fourTilesAvx512(const float* x, int64_t W, int64_t dh, int64_t dw, float* v,
                                                        int64_t positionStride) {
  __m512 d[4][4];
  for (int i = 0; i < 4; ++i) {
    const float* row = x + i * dh * W * kChannelPack;
    if (dw == 1) {
      const __m512 p0 = _mm512_loadu_ps(row), p4 = _mm512_loadu_ps(row + 16);     // pixels 0-3, 4-7
      const __m512 p2 = _mm512_loadu_ps(row + 8), p6 = _mm512_loadu_ps(row + 24);  // 2-5, 6-9
      d[i][0] = _mm512_maskz_shuffle_f32x4(0xFFFF, p0, p4, 0x88);  // pixels 0 2 4 6
      d[i][1] = _mm512_maskz_shuffle_f32x4(0xFFFF, p0, p4, 0xDD);  // 1 3 5 7
      d[i][2] = _mm512_maskz_shuffle_f32x4(0xFFFF, p2, p6, 0x88);  // 2 4 6 8
      d[i][3] = _mm512_maskz_shuffle_f32x4(0xFFFF, p2, p6, 0xDD);  // 3 5 7 9
      continue;
    }
    for (int j = 0; j < 4; ++j) {
      const float* p = row + j * dw * kChannelPack;
      const int64_t tile = 2 * dw * kChannelPack;  // from one tile's column j to the next's
      __m512 c = _mm512_castps128_ps512(_mm_loadu_ps(p));
      c = _mm512_insertf32x4(c, _mm_loadu_ps(p + tile), 1);
      c = _mm512_insertf32x4(c, _mm_loadu_ps(p + 2 * tile), 2);
      d[i][j] = _mm512_insertf32x4(c, _mm_loadu_ps(p + 3 * tile), 3);
    }
  }
  storeTransformed(d, v, positionStride);
}

// The same for two adjacent tiles in 256-bit vectors (AVX2): patch column j of tile k is
// pixel 2k + j, so a column is pixels j and j + 2, one 128-bit load each.
// (Dilated: pixels dw j and dw (j + 2), rows dh apart.)
__attribute__((target("avx2,fma"))) void twoTilesAvx2(const float* x, int64_t W, int64_t dh, int64_t dw, float* v,
                                                      int64_t positionStride) {
  __m256 d[4][4];
  for (int i = 0; i < 4; ++i) {
    const float* row = x + i * dh * W * kChannelPack;
    for (int j = 0; j < 4; ++j)
      d[i][j] = _mm256_set_m128(_mm_loadu_ps(row + dw * (j + 2) * kChannelPack), _mm_loadu_ps(row + dw * j * kChannelPack));
  }
  storeTransformed(d, v, positionStride);
}
#endif

}  // namespace

bool WinogradConv::suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y) {
  const WindowGeometry& g = c.window;
  if (g.rank != 2 || c.group != 1 || !x.packed || !y.packed) return false;
  for (int d = 0; d < 2; ++d)
    if (g.kernel[d] != 3 || g.stride[d] != 1 || g.dilation[d] < 1) return false;
  // Thin GEMMs (few input channels) gain little from the saved multiply-adds and still pay
  // for the transforms: the 16 is a judgement, not measured (the convs timed were PP-OCRv4
  // det's 96 -> 24 heads and the 64 -> 64 micro-benchmark, docs/cpu-conv-gemm.md). Few
  // outputs are fine: a face detector's 64 -> 6 and 128 -> 4 score heads ran twice as fast
  // here as through im2col, whose GEMM pads N to 16 columns (UltraFace 320x240 1.56 -> 1.43 ms).
  // Each phase of a dilated conv needs outputs for a tile too (a phase of one output row
  // would leave half of every tile unused).
  return c.inChannels % kChannelPack == 0 && c.inChannels >= 16 && c.outChannels >= 4 &&
         g.output[0] >= 2 * g.dilation[0] && g.output[1] >= 2 * g.dilation[1];
}

void WinogradConv::plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x,
                        const ChannelAddressing& y, const Tensor* w, int threads) {
  shape_ = c;
  xAddr_ = x;
  yAddr_ = y;
  const WindowGeometry& g = c.window;
  // A phase has up to ceil(OH / dh) output rows (the first phases one more than the last).
  tilesH_ = ((g.output[0] + g.dilation[0] - 1) / g.dilation[0] + 1) / 2;
  tilesW_ = ((g.output[1] + g.dilation[1] - 1) / g.dilation[1] + 1) / 2;
  tiles_ = c.batch * g.dilation[0] * g.dilation[1] * tilesH_ * tilesW_;
  inBlocks_ = c.inChannels / kChannelPack;
  outBlocks_ = channelBlocks(c.outChannels);
  mPadded_ = outBlocks_ * kChannelPack;
  const int64_t C = c.inChannels, M = c.outChannels;
  // Tasks: runs of kTiles tiles (whole register tiles of the GEMM, read in place; even
  // shares of 47 had made 64 -> 64 at 56x56 6% slower), times chunks of the output channels
  // where the tiles alone leave threads idle (a 7x7 plane is 16 tiles: one task, one thread).
  tileTasks_ = (tiles_ + kTiles - 1) / kTiles;
  tilesPerTask_ = std::min(kTiles, tiles_);
  std::vector<int64_t> rowTiles;
  for (int64_t t0 = 0; t0 < tiles_; t0 += tilesPerTask_) rowTiles.push_back(gemmRowTiles(std::min(tilesPerTask_, tiles_ - t0)));
  // Only where the tiles make fewer than two tasks a thread: each chunk transforms its tiles'
  // input again and runs a narrower product, which ColumnSplit's model does not count.
  const ColumnSplit split = tileTasks_ < 2 * threads ? splitColumns(M, rowTiles, threads) : ColumnSplit{M, 1};
  colWidth_ = split.width;
  tasks_ = tileTasks_ * split.chunks;
  workers_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, tasks_)));
  packedSize_ = gemmPackedBSize(C, M);

  // U = G g Gt per (output, input) channel pair, G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1],
  // laid out as 16 [C x M] matrices and packed for the GEMM.
  weights_.plan(cache, {w}, "Winograd F(2x2,3x3) C" + std::to_string(C) + " M" + std::to_string(M),
                kPositions * packedSize_, [this, w, C, M](float* dst) {
                  std::vector<float> u(kPositions * C * M);
                  const float* gw = w->data<float>();
                  for (int64_t m = 0; m < M; ++m)
                    for (int64_t ch = 0; ch < C; ++ch) {
                      const float* k = gw + (m * C + ch) * 9;
                      float gg[4][3];
                      for (int j = 0; j < 3; ++j) {
                        gg[0][j] = k[j];
                        gg[1][j] = 0.5f * (k[j] + k[3 + j] + k[6 + j]);
                        gg[2][j] = 0.5f * (k[j] - k[3 + j] + k[6 + j]);
                        gg[3][j] = k[6 + j];
                      }
                      for (int i = 0; i < 4; ++i) {
                        const float row[4] = {gg[i][0], 0.5f * (gg[i][0] + gg[i][1] + gg[i][2]),
                                              0.5f * (gg[i][0] - gg[i][1] + gg[i][2]), gg[i][2]};
                        for (int j = 0; j < 4; ++j) u[((i * 4 + j) * C + ch) * M + m] = row[j];
                      }
                    }
                  for (int p = 0; p < kPositions; ++p) gemmPackB(C, M, u.data() + p * C * M, M, false, dst + p * packedSize_);
                });
  // V's positions lie one cache line more than a whole number of blocks apart: at a multiple
  // of 4 KB (64 channels: 12 KB) the 16 stores of a transform would all fall in one L1 set.
  positionStride_ = inBlocks_ * kTiles * kChannelPack + 16;
  scratchPerWorker_ = kPositions * positionStride_ + kPositions * kTiles * mPadded_ + kTiles * outBlocks_ * 16;
  // Columns past M of the GEMM's product are never written: zero from here on.
  scratch_.assign(scratchPerWorker_ * workers_, 0.f);
  bias_.assign(mPadded_, 0.f);
}

// Tiles in the order (image, phase row a, tile row, phase column b, tile column): the tiles of
// one tile row of every phase column read the same four image rows, so they follow each
// other; phase by phase over the whole image, each phase had read it all again (a 64 -> 64
// conv at dilation 5 on 128x128, 2 threads, interleaved: 3.19 -> 3.10 ms).
WinogradConv::Tile WinogradConv::tileAt(int64_t q) const {
  const WindowGeometry& g = shape_.window;
  const int64_t dh = g.dilation[0], dw = g.dilation[1];
  const int64_t tj = q % tilesW_, b = q / tilesW_ % dw, ti = q / (tilesW_ * dw) % tilesH_;
  const int64_t a = q / (tilesW_ * dw * tilesH_) % dh, n = q / (tilesW_ * dw * tilesH_ * dh);
  return {n, a + dh * 2 * ti, b + dw * 2 * tj};
}

// V = (Bt d B) for the 4x4 input patch d of each tile t and channel c, with
// Bt = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], laid out [position][block][tile][lane]: the
// GEMM of position p reads its rows (tiles) as an NC4HW4 activation, in place. One channel
// block at a time over all the task's tiles, so x is read along its rows. Adjacent tiles
// inside x go in groups, four on AVX-512 (fourTilesAvx512), two on AVX2 (twoTilesAvx2); the
// rest a tile and 4 channels (one NC4HW4 pixel) at a time.
void WinogradConv::transformInput(const float* x, int64_t tile0, int64_t tiles, float* v) const {
  const WindowGeometry& g = shape_.window;
  const int64_t H = g.input[0], W = g.input[1];
  const int64_t blockStride = xAddr_.spatial * kChannelPack, positionStride = positionStride_;
  struct Patch {
    int64_t corner;  // offset in x of the patch's top-left pixel (maybe in the padding)
    int64_t ih0, iw0;
    bool inside;  // the whole patch in x
    bool grouped; // the first of `group` adjacent tiles done together
  };
  Patch patch[kTiles];
#ifdef TESSERA_WINOGRAD_X86
  const int64_t group = cpuIsa() == CpuIsa::kAvx512 ? 4 : cpuIsa() == CpuIsa::kAvx2 ? 2 : 0;
#else
  const int64_t group = 0;
#endif
  const int64_t dh = g.dilation[0], dw = g.dilation[1];
  for (int64_t t = 0, groupEnd = 0; t < tiles; ++t) {
    const Tile tile = tileAt(tile0 + t);
    Patch& pt = patch[t];
    pt.ih0 = tile.oh0 - g.padBegin[0];
    pt.iw0 = tile.ow0 - g.padBegin[1];
    pt.corner = tile.n * xAddr_.batchStride + (pt.ih0 * W + pt.iw0) * kChannelPack;
    pt.inside = pt.ih0 >= 0 && pt.ih0 + 3 * dh < H && pt.iw0 >= 0 && pt.iw0 + 3 * dw < W;
    // Tiles of one tile row (of one phase), all of their patches inside x (the last one's
    // ends at pixel dw (2 group + 1) from the first's corner).
    pt.grouped = group > 0 && t >= groupEnd && t + group <= tiles && (tile0 + t) % tilesW_ + group <= tilesW_ &&
                 pt.inside && pt.iw0 + dw * (2 * group + 1) < W;
    if (pt.grouped) groupEnd = t + group;
  }
  for (int64_t b = 0; b < inBlocks_; ++b) {
    const float* xc = x + b * blockStride;
    for (int64_t t = 0; t < tiles; ++t) {
      const Patch& pt = patch[t];
      float* out = v + (b * kTiles + t) * kChannelPack;
#ifdef TESSERA_WINOGRAD_X86
      if (pt.grouped) {
        if (group == 4) fourTilesAvx512(xc + pt.corner, W, dh, dw, out, positionStride);
        else twoTilesAvx2(xc + pt.corner, W, dh, dw, out, positionStride);
        t += group - 1;
        continue;
      }
#endif
      Float4 d[4][4];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          const int64_t ih = pt.ih0 + i * dh, iw = pt.iw0 + j * dw;
          const bool in = pt.inside || (ih >= 0 && ih < H && iw >= 0 && iw < W);
          d[i][j] = in ? loadFloat4(xc + pt.corner + (i * dh * W + j * dw) * kChannelPack) : splatFloat4(0.f);
        }
      storeTransformed(d, out, positionStride);
    }
  }
}

// The 2x2 output of each tile t and output block from m[t][p][M4]: At m A + bias,
// At = [1 1 1 0; 0 1 -1 -1], into out[t][block][pixel][lane].
void WinogradConv::transformOutput(const float* m, int64_t tiles, int64_t ob0, int64_t ob1, float* out) const {
  for (int64_t t = 0; t < tiles; ++t)
    for (int64_t ob = ob0; ob < ob1; ++ob) {
      const float* src = m + t * kPositions * mPadded_ + ob * kChannelPack;
      Float4 e[4][4];
      for (int p = 0; p < kPositions; ++p) e[p / 4][p % 4] = loadFloat4(src + p * mPadded_);
      Float4 s[2][4];  // At m
      for (int j = 0; j < 4; ++j) {
        s[0][j] = e[0][j] + e[1][j] + e[2][j];
        s[1][j] = e[1][j] - e[2][j] - e[3][j];
      }
      const Float4 b = loadFloat4(bias_.data() + ob * kChannelPack);
      float* o = out + (t * outBlocks_ + ob) * 16;
      for (int i = 0; i < 2; ++i) {  // (At m) A
        storeFloat4(o + (i * 2 + 0) * 4, s[i][0] + s[i][1] + s[i][2] + b);
        storeFloat4(o + (i * 2 + 1) * 4, s[i][1] - s[i][2] - s[i][3] + b);
      }
    }
}

void WinogradConv::task(int64_t t, const float* x, float* y, const FusedActivation& act, int worker) {
  const int64_t C = shape_.inChannels, M = shape_.outChannels;
  float* v = scratch_.data() + worker * scratchPerWorker_;
  float* m = v + kPositions * positionStride_;
  float* out = m + kPositions * kTiles * mPadded_;
  // Task t: the tiles of tile task t % tileTasks_, output channels [n0, n1) (ColumnSplit.hpp).
  const int64_t tile0 = t % tileTasks_ * tilesPerTask_, tiles = std::min(tilesPerTask_, tiles_ - tile0);
  const int64_t n0 = t / tileTasks_ * colWidth_, n1 = std::min(M, n0 + colWidth_);
  const int64_t ob0 = n0 / kChannelPack, ob1 = channelBlocks(n1);
  transformInput(x, tile0, tiles, v);
  for (int p = 0; p < kPositions; ++p) {
    GemmArgs a;
    a.M = tiles;
    a.N = M;
    a.K = C;
    a.A = v + p * positionStride_;  // [block][tile][lane]: NC4HW4 rows
    a.lda = kChannelPack;
    a.aBlockStride = kTiles * kChannelPack;
    a.packedB = u_ + p * packedSize_;
    a.C = m + p * mPadded_;
    a.ldc = kPositions * mPadded_;
    gemmPackedTile(a, 0, tiles, n0, n1);
  }
  transformOutput(m, tiles, ob0, ob1, out);
  // Relu/Clip as the tiles are copied into y below (RegisterClamp), the others on the
  // scratch tiles while in cache.
  const RegisterClamp clamp = RegisterClamp::of(act, false);
  if (!clamp.any())
    for (int64_t i = 0; i < tiles; ++i) applyFusedActivation(act, out + (i * outBlocks_ + ob0) * 16, (ob1 - ob0) * 16);
  const Float4 lo = {clamp.lo, clamp.lo, clamp.lo, clamp.lo}, hi = {clamp.hi, clamp.hi, clamp.hi, clamp.hi};
  const WindowGeometry& g = shape_.window;
  const int64_t OH = g.output[0], OW = g.output[1], blockStride = yAddr_.spatial * kChannelPack;
  const int64_t dh = g.dilation[0], dw = g.dilation[1];
  for (int64_t i = 0; i < tiles; ++i) {
    const Tile tile = tileAt(tile0 + i);
    // The tile's outputs dh rows and dw columns apart; those past the image store nothing.
    const int64_t rowsHere = tile.oh0 >= OH ? 0 : std::min<int64_t>(2, (OH - 1 - tile.oh0) / dh + 1);
    const int64_t colsHere = tile.ow0 >= OW ? 0 : std::min<int64_t>(2, (OW - 1 - tile.ow0) / dw + 1);
    for (int64_t ob = ob0; ob < ob1; ++ob) {
      const float* o = out + (i * outBlocks_ + ob) * 16;
      float* yb = y + tile.n * yAddr_.batchStride + ob * blockStride;
      for (int64_t a = 0; a < rowsHere; ++a)
        for (int64_t b = 0; b < colsHere; ++b) {
          Float4 v = loadFloat4(o + (a * 2 + b) * 4);
          if (clamp.upper) v = v < hi ? v : hi;  // std::min(hi, v), NaN to hi
          if (clamp.lower) v = v > lo ? v : lo;  // std::max(lo, v)
          storeFloat4(yb + ((tile.oh0 + a * dh) * OW + tile.ow0 + b * dw) * kChannelPack, v);
        }
    }
  }
}

void WinogradConv::run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act) {
  u_ = weights_.get();
  for (int64_t m = 0; m < shape_.outChannels; ++m) bias_[m] = bias ? bias[m] : 0.f;  // padded to whole blocks
  runClaimedTasks(pool, tasks_, workers_,
                  [&](int64_t t, int64_t worker) { task(t, x, y, act, static_cast<int>(worker)); });
}

}  // namespace tessera
