#include "backends/cpu/ConvFewOutputs.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "backends/cpu/RegisterClamp.hpp"
#include "tessera/ThreadPool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define TESSERA_FEW_OUTPUTS_X86 1
#include <immintrin.h>
#define TESSERA_AVX2 __attribute__((target("avx2,fma")))
#define TESSERA_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline
#endif

namespace tessera {
namespace {

constexpr int kMaxOutputs = 12;
// Of each group, in a grouped conv (ResNeXt's 3x3 convs of 32 groups of 4-16 channels): the
// GEMM would fill 4-16 of a 16-column panel over a K of 36-144.
constexpr int kMaxGroupOutputs = 16;
constexpr int64_t kTilePoints = 24;  // grid points a register tile (fewOutputBlockAvx2)
constexpr int kMaxKernel = 11;
// A band's padded rows, all channels, stay in L2 (512 KB a core on Zen 3 and 4; 1-2 MB on
// recent Intel cores): 192 KB.
constexpr int64_t kScratchFloats = 48 * 1024;

// One output block (4 channels) over a band of output rows, on the padded grid: the band's
// input rows are zero-padded to Wp = OW + KW - 1 columns and laid end to end, channel c's at
// x + c * channelStride, so output (row r, column j) of the band is grid point q = r * Wp + j
// and its tap (kh, kw) reads x[q + kh * Wp + kw]. Grid points past OW in a row are computed
// too (KW - 1 a row) and dropped: a register tile of 24 points then runs across rows, and a
// 5-wide plane fills it as well as a 40-wide one. At stride 2 each channel's padded rows are
// split into four phase planes (even or odd row, even or odd column), each Wp = OW + (KW -
// 1) / 2 wide: output (r, j) is point q = r * Wp + j of every plane, and tap (kh, kw) reads
// plane (kh % 2, kw % 2) at q + (kh / 2) * Wp + kw / 2. Either way tap t reads x[q +
// tapOffset[t]].
struct FewOutputBand {
  const float* x;
  int64_t channelStride, Wp;
  int64_t C, taps;
  const int64_t* tapOffset;  // [taps]
  const float* w;     // [C][KH][KW][4]
  const float* bias;  // [4]
  float* y;           // the band's first output pixel in this block of y
  int64_t OW, rows;
  RegisterClamp clamp;
};

#ifdef TESSERA_FEW_OUTPUTS_X86
// Four output channels' accumulators of 8 grid points as 8 pixels x 4 channels (NC4HW4):
// out[i] holds points 2i and 2i + 1.
TESSERA_AVX2_INLINE void transposeToPixels(__m256 a0, __m256 a1, __m256 a2, __m256 a3, __m256 (&out)[4]) {
  const __m256 t0 = _mm256_unpacklo_ps(a0, a1), t1 = _mm256_unpackhi_ps(a0, a1);
  const __m256 t2 = _mm256_unpacklo_ps(a2, a3), t3 = _mm256_unpackhi_ps(a2, a3);
  const __m256 p04 = _mm256_shuffle_ps(t0, t2, 0x44), p15 = _mm256_shuffle_ps(t0, t2, 0xEE);  // points 0|4, 1|5
  const __m256 p26 = _mm256_shuffle_ps(t1, t3, 0x44), p37 = _mm256_shuffle_ps(t1, t3, 0xEE);  // 2|6, 3|7
  out[0] = _mm256_permute2f128_ps(p04, p15, 0x20);
  out[1] = _mm256_permute2f128_ps(p26, p37, 0x20);
  out[2] = _mm256_permute2f128_ps(p04, p15, 0x31);
  out[3] = _mm256_permute2f128_ps(p26, p37, 0x31);
}

// Grid points [q, q + 8) of the band into y: straight stores where they are 8 pixels of one
// row, else point by point through a stack tile (no masked stores: slow on Zen 3).
TESSERA_AVX2_INLINE void storePoints(const __m256 (&px)[4], int64_t q, const FewOutputBand& b) {
  int64_t row = q / b.Wp, col = q % b.Wp;
  if (col + 8 <= b.OW) {
    float* y = b.y + (row * b.OW + col) * 4;
    for (int i = 0; i < 4; ++i) _mm256_storeu_ps(y + 8 * i, px[i]);
    return;
  }
  alignas(32) float tile[32];
  for (int i = 0; i < 4; ++i) _mm256_store_ps(tile + 8 * i, px[i]);
  for (int i = 0; i < 8 && row < b.rows; ++i) {
    if (col < b.OW) std::memcpy(b.y + (row * b.OW + col) * 4, tile + 4 * i, 4 * sizeof(float));
    if (++col == b.Wp) col = 0, ++row;
  }
}

TESSERA_AVX2_INLINE __m256 clampAvx2(__m256 v, const RegisterClamp& c) {
  if (c.upper) v = _mm256_min_ps(v, _mm256_set1_ps(c.hi));
  if (c.lower) v = _mm256_max_ps(v, _mm256_set1_ps(c.lo));
  return v;
}

// 4 output channels x 24 grid points a register tile: 12 accumulators, and each broadcast
// weight feeds 3 multiply-adds (a first version, 12 outputs x 8 points with a broadcast per
// multiply-add, ran at about half the FMA rate on Zen 3).
TESSERA_AVX2 void fewOutputBlockAvx2(const FewOutputBand& b) {
  constexpr int PV = kTilePoints / 8;
  const int64_t taps = b.taps;
  const int64_t points = b.rows * b.Wp;
  for (int64_t q0 = 0; q0 < points; q0 += 8 * PV) {
    __m256 acc[4][PV];
#pragma GCC unroll 4
    for (int o = 0; o < 4; ++o)
#pragma GCC unroll 3
      for (int v = 0; v < PV; ++v) acc[o][v] = _mm256_broadcast_ss(b.bias + o);
    const float* w = b.w;
    for (int64_t c = 0; c < b.C; ++c) {
      const float* xc = b.x + c * b.channelStride + q0;
      for (int64_t t = 0; t < taps; ++t, w += 4) {
        const float* xr = xc + b.tapOffset[t];
        __m256 xv[PV];
#pragma GCC unroll 3
        for (int v = 0; v < PV; ++v) xv[v] = _mm256_loadu_ps(xr + 8 * v);
#pragma GCC unroll 4
        for (int o = 0; o < 4; ++o) {
          const __m256 wv = _mm256_broadcast_ss(w + o);
#pragma GCC unroll 3
          for (int v = 0; v < PV; ++v) acc[o][v] = _mm256_fmadd_ps(xv[v], wv, acc[o][v]);
        }
      }
    }
#pragma GCC unroll 3
    for (int v = 0; v < PV; ++v) {
      const int64_t q = q0 + 8 * v;
      if (q >= points) break;
      __m256 px[4];
      transposeToPixels(clampAvx2(acc[0][v], b.clamp), clampAvx2(acc[1][v], b.clamp), clampAvx2(acc[2][v], b.clamp),
                        clampAvx2(acc[3][v], b.clamp), px);
      storePoints(px, q, b);
    }
  }
}

// Rows [ih0, ih0 + rows) of image plane `xb` (NC4HW4, H x W, C channels) as zero-padded rows
// of Wp floats: dst[c * channelStride + i * Wp + pw + iw] = x(c, ih0 + i, iw), zeros around
// and after the last row (the tiles' overhang).
TESSERA_AVX2 void padRowsAvx2(const float* xb, int64_t C, int64_t H, int64_t W, int64_t ih0, int64_t rows,
                              int64_t pw, int64_t Wp, int64_t channelStride, float* dst) {
  const int64_t blockStride = H * W * 4;
  for (int64_t cb = 0; cb < (C + 3) / 4; ++cb) {
    const int64_t lanes = std::min<int64_t>(4, C - cb * 4);
    for (int64_t i = 0; i < rows; ++i) {
      float* d[4];
      for (int64_t l = 0; l < lanes; ++l) {
        d[l] = dst + (cb * 4 + l) * channelStride + i * Wp;
        std::memset(d[l], 0, static_cast<size_t>(pw) * sizeof(float));
      }
      const int64_t ih = ih0 + i;
      if (ih < 0 || ih >= H) {
        for (int64_t l = 0; l < lanes; ++l) std::memset(d[l] + pw, 0, static_cast<size_t>(Wp - pw) * sizeof(float));
        continue;
      }
      const float* src = xb + cb * blockStride + ih * W * 4;
      int64_t iw = 0;
      if (lanes == 4)  // 4 pixels x 4 channels at a time, transposed
        for (; iw + 4 <= W; iw += 4) {
          __m128 p0 = _mm_loadu_ps(src + iw * 4), p1 = _mm_loadu_ps(src + iw * 4 + 4);
          __m128 p2 = _mm_loadu_ps(src + iw * 4 + 8), p3 = _mm_loadu_ps(src + iw * 4 + 12);
          _MM_TRANSPOSE4_PS(p0, p1, p2, p3);
          _mm_storeu_ps(d[0] + pw + iw, p0);
          _mm_storeu_ps(d[1] + pw + iw, p1);
          _mm_storeu_ps(d[2] + pw + iw, p2);
          _mm_storeu_ps(d[3] + pw + iw, p3);
        }
      for (; iw < W; ++iw)
        for (int64_t l = 0; l < lanes; ++l) d[l][pw + iw] = src[iw * 4 + l];
      for (int64_t l = 0; l < lanes; ++l) std::memset(d[l] + pw + W, 0, static_cast<size_t>(Wp - pw - W) * sizeof(float));
    }
    for (int64_t l = 0; l < lanes; ++l)
      std::memset(dst + (cb * 4 + l) * channelStride + rows * Wp, 0,
                  static_cast<size_t>(channelStride - rows * Wp) * sizeof(float));
  }
}

// The stride-2 layout: input rows [ih0, ih0 + rows) of plane `xb` split into four phase planes
// of `phaseRows` rows of Wp floats, phaseStride apart: padded pixel (i, pw + iw) goes to
// plane (i % 2, (pw + iw) % 2), row i / 2, column (pw + iw) / 2. Everything else (padding,
// columns past the planes' width, what tiles read past the band) is zero.
TESSERA_AVX2 void padRowsStride2Avx2(const float* xb, int64_t C, int64_t H, int64_t W, int64_t ih0, int64_t rows,
                                     int64_t pw, int64_t Wp, int64_t phaseStride, int64_t channelStride, float* dst) {
  const int64_t blockStride = H * W * 4;
  std::memset(dst, 0, static_cast<size_t>(C * channelStride) * sizeof(float));
  const int64_t lastColumn = std::min(W, 2 * Wp - pw);  // pixels from here on fall past the planes
  for (int64_t cb = 0; cb < (C + 3) / 4; ++cb) {
    const int64_t lanes = std::min<int64_t>(4, C - cb * 4);
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t ih = ih0 + i;
      if (ih < 0 || ih >= H) continue;
      const float* src = xb + cb * blockStride + ih * W * 4;
      // Plane rows of this input row: the even columns' plane, then the odd ones'.
      float* even[4];
      float* odd[4];
      for (int64_t l = 0; l < lanes; ++l) {
        float* row = dst + (cb * 4 + l) * channelStride + ((i % 2) * 2) * phaseStride + (i / 2) * Wp;
        even[l] = row;
        odd[l] = row + phaseStride;
      }
      int64_t iw = 0;
      if (lanes == 4)  // 8 pixels x 4 channels at a time: transposed, then split by column parity
        for (; iw + 8 <= lastColumn; iw += 8) {
          __m128 p0 = _mm_loadu_ps(src + iw * 4), p1 = _mm_loadu_ps(src + iw * 4 + 4);
          __m128 p2 = _mm_loadu_ps(src + iw * 4 + 8), p3 = _mm_loadu_ps(src + iw * 4 + 12);
          __m128 p4 = _mm_loadu_ps(src + iw * 4 + 16), p5 = _mm_loadu_ps(src + iw * 4 + 20);
          __m128 p6 = _mm_loadu_ps(src + iw * 4 + 24), p7 = _mm_loadu_ps(src + iw * 4 + 28);
          _MM_TRANSPOSE4_PS(p0, p1, p2, p3);
          _MM_TRANSPOSE4_PS(p4, p5, p6, p7);
          const __m128 lo[4] = {p0, p1, p2, p3}, hi[4] = {p4, p5, p6, p7};
          // Pixel iw's column pw + iw: its parity picks the plane of the even-indexed pixels.
          const int64_t c0 = pw + iw;
          for (int l = 0; l < 4; ++l) {
            const __m128 e = _mm_shuffle_ps(lo[l], hi[l], _MM_SHUFFLE(2, 0, 2, 0));  // pixels iw, iw + 2, ...
            const __m128 o = _mm_shuffle_ps(lo[l], hi[l], _MM_SHUFFLE(3, 1, 3, 1));  // iw + 1, iw + 3, ...
            _mm_storeu_ps((c0 % 2 ? odd[l] : even[l]) + c0 / 2, e);
            _mm_storeu_ps((c0 % 2 ? even[l] : odd[l]) + (c0 + 1) / 2, o);
          }
        }
      for (; iw < lastColumn; ++iw) {
        const int64_t col = pw + iw;
        for (int64_t l = 0; l < lanes; ++l) (col % 2 ? odd[l] : even[l])[col / 2] = src[iw * 4 + l];
      }
    }
  }
}
#endif

}  // namespace

bool FewOutputConv::suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y) {
#ifdef TESSERA_FEW_OUTPUTS_X86
  const WindowGeometry& g = c.window;
  if (cpuIsa() == CpuIsa::kGeneric || g.rank != 2 || !x.packed || !y.packed) return false;
  if (g.stride[0] != g.stride[1] || g.stride[0] > 2) return false;  // 1 or 2, the same on both axes
  for (int d = 0; d < 2; ++d)
    if (g.dilation[d] != 1 || g.kernel[d] > kMaxKernel) return false;
  if (c.group > 1) {  // each group whole blocks in and out, few outputs each
    if (c.inPerGroup() % kChannelPack != 0 || c.outPerGroup() % kChannelPack != 0 ||
        c.outPerGroup() > kMaxGroupOutputs)
      return false;
  } else if (c.inChannels <= 4 || c.outChannels > kMaxOutputs) {
    return false;
  }
  // 1x1 convs have a kernel of their own (ConvPointwise.hpp) or read x in place for the GEMM;
  // an empty x or y (auto_pad SAME over a 0-wide input) goes there too.
  return g.kernel[0] * g.kernel[1] > 1 && c.batch > 0 && g.output[0] > 0 && g.output[1] > 0;
#else
  (void)c, (void)x, (void)y;
  return false;
#endif
}

void FewOutputConv::plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x,
                         const ChannelAddressing& y, const Tensor* w, int threads) {
  shape_ = c;
  xAddr_ = x;
  yAddr_ = y;
  const WindowGeometry& g = c.window;
  const int64_t C = c.inPerGroup(), M = c.outChannels, KH = g.kernel[0], KW = g.kernel[1], OH = g.output[0];
  blocks_ = c.group > 1 ? c.outPerGroup() / kChannelPack : channelBlocks(M);  // of a group
  stride_ = g.stride[0];
  gridWidth_ = g.output[1] + (KW - 1) / stride_;
  // A channel's phase plane: the band's input rows (stride 2: half of them) of Wp floats.
  auto phaseRows = [&](int64_t rows) { return (stride_ * (rows - 1) + KH + stride_ - 1) / stride_; };
  // Bands: two tasks a thread where the rows allow, each no taller than the scratch holds and
  // at least two register tiles of grid points (a 5x4 plane's rows one at a time had filled
  // 7 of each tile's 24 points).
  int64_t fitRows = std::max<int64_t>(1, OH);
  while (fitRows > 1 && C * stride_ * stride_ * phaseRows(fitRows) * gridWidth_ > kScratchFloats) --fitRows;
  const int64_t wantedTasks = 2 * threads;
  const int64_t images = c.batch * c.group;  // each group an image of its own
  const int64_t wantedBands = std::max<int64_t>(1, (wantedTasks + images - 1) / images);
  const int64_t minRows = (2 * kTilePoints + gridWidth_ - 1) / gridWidth_;
  bandRows_ = std::min(std::max((OH + wantedBands - 1) / wantedBands, minRows), fitRows);
  bandRows_ = std::max<int64_t>(1, std::min(bandRows_, OH));
  bands_ = (OH + bandRows_ - 1) / bandRows_;
  // Too few bands for the threads: tasks take a share of the output blocks too (each pads
  // its band of x again, a small cost next to a block's multiply-adds).
  const int64_t splits = std::min(blocks_, (wantedTasks + images * bands_ - 1) / (images * bands_));
  blocksPerTask_ = (blocks_ + splits - 1) / splits;
  blockTasks_ = (blocks_ + blocksPerTask_ - 1) / blocksPerTask_;
  // A channel's band: its phase planes, then what the last register tile reads past them.
  phaseStride_ = phaseRows(bandRows_) * gridWidth_;
  channelStride_ = stride_ * stride_ * phaseStride_ + kTilePoints + KW;
  tapOffset_.clear();
  for (int64_t kh = 0; kh < KH; ++kh)
    for (int64_t kw = 0; kw < KW; ++kw)
      tapOffset_.push_back(((kh % stride_) * stride_ + kw % stride_) * phaseStride_ + (kh / stride_) * gridWidth_ +
                           kw / stride_);
  const int64_t workers = std::min<int64_t>(threads, images * bands_ * blockTasks_);
  scratch_.assign(static_cast<size_t>(C * channelStride_ * std::max<int64_t>(workers, 1)), 0.f);
  const int64_t taps = KH * KW;
  weights_.plan(cache, {w}, "FewOutputConv C" + std::to_string(C) + " M" + std::to_string(M) + " k" +
                                std::to_string(KH) + "x" + std::to_string(KW) + " g" + std::to_string(c.group),
                channelBlocks(M) * C * taps * 4, [w, C, M, taps](float* dst) {
                  const float* src = w->data<float>();
                  for (int64_t m = 0; m < M; ++m)
                    for (int64_t ch = 0; ch < C; ++ch)
                      for (int64_t t = 0; t < taps; ++t)
                        dst[((m / 4 * C + ch) * taps + t) * 4 + m % 4] = src[(m * C + ch) * taps + t];
                });
  bias_.assign(static_cast<size_t>(channelBlocks(M) * 4), 0.f);
}

void FewOutputConv::run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act) {
#ifdef TESSERA_FEW_OUTPUTS_X86
  const WindowGeometry& g = shape_.window;
  const int64_t C = shape_.inPerGroup(), H = g.input[0], W = g.input[1], OH = g.output[0], OW = g.output[1];
  const int64_t KH = g.kernel[0], KW = g.kernel[1];
  for (int64_t m = 0; m < shape_.outChannels; ++m) bias_[m] = bias ? bias[m] : 0.f;
  FewOutputBand band;
  band.channelStride = channelStride_;
  band.Wp = gridWidth_;
  band.C = C, band.taps = KH * KW;
  band.tapOffset = tapOffset_.data();
  band.OW = OW;
  band.clamp = RegisterClamp::of(act, false);
  const float* weights = weights_.get();
  const int64_t blockStride = yAddr_.spatial * 4, images = shape_.batch * shape_.group;
  const int64_t tasks = images * bands_ * blockTasks_;
  runClaimedTasks(pool, tasks, static_cast<int>(std::min<int64_t>(pool.threads(), tasks)),
                  [&](int64_t task, int64_t worker) {
    const int64_t image = task / (bands_ * blockTasks_), bandIndex = task / blockTasks_ % bands_;
    const int64_t n = image / shape_.group, group = image % shape_.group;
    const int64_t oh0 = bandIndex * bandRows_, oh1 = std::min(OH, oh0 + bandRows_);
    // Blocks of y (and of x: the group's channels start on a block) from the group's first.
    const int64_t q0 = group * blocks_ + task % blockTasks_ * blocksPerTask_;
    const int64_t q1 = std::min((group + 1) * blocks_, q0 + blocksPerTask_);
    FewOutputBand b = band;
    b.rows = oh1 - oh0;
    float* padded = scratch_.data() + worker * C * channelStride_;
    const float* xg = x + n * xAddr_.batchStride + group * (C / kChannelPack) * H * W * kChannelPack;
    if (stride_ == 1)
      padRowsAvx2(xg, C, H, W, oh0 - g.padBegin[0], b.rows + KH - 1, g.padBegin[1], gridWidth_, channelStride_, padded);
    else
      padRowsStride2Avx2(xg, C, H, W, 2 * oh0 - g.padBegin[0], 2 * (b.rows - 1) + KH, g.padBegin[1], gridWidth_,
                         phaseStride_, channelStride_, padded);
    b.x = padded;
    for (int64_t q = q0; q < q1; ++q) {
      b.w = weights + q * C * KH * KW * 4;
      b.bias = bias_.data() + q * 4;
      b.y = y + n * yAddr_.batchStride + q * blockStride + oh0 * OW * 4;
      fewOutputBlockAvx2(b);
      if (!b.clamp.any()) applyFusedActivation(act, b.y, b.rows * OW * 4);  // the band, still in cache
    }
  });
#else
  (void)pool, (void)x, (void)bias, (void)y, (void)act;
#endif
}

}  // namespace tessera
