#include "backends/cpu/ConvWinograd.hpp"

#include <algorithm>
#include <string>

#include "backends/cpu/FusedActivationPass.hpp"
#include "backends/cpu/Gemm.hpp"
#include "tessera/ThreadPool.hpp"

namespace tessera {
namespace {

constexpr int kPositions = 16;  // a 4x4 transformed tile
// Output tiles per task: the GEMMs' rows, a multiple of every kernel's register rows (12
// AVX-512, 6 AVX2, 4 portable); V for 96 channels is 16 x 48 x 96 floats, 288 KiB: L2.
constexpr int64_t kTiles = 48;

}  // namespace

bool WinogradConv::suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y) {
  const WindowGeometry& g = c.window;
  if (g.rank != 2 || c.group != 1 || !x.packed || !y.packed) return false;
  for (int d = 0; d < 2; ++d)
    if (g.kernel[d] != 3 || g.stride[d] != 1 || g.dilation[d] != 1) return false;
  // Thin GEMMs (few channels) gain little from the saved multiply-adds and still pay for the
  // transforms. The 16 / 8 thresholds are a judgement, not measured: the convs timed were
  // PP-OCRv4 det's 96 -> 24 heads and the 64 -> 64 micro-benchmark (docs/cpu-conv-gemm.md).
  return c.inChannels % kChannelPack == 0 && c.inChannels >= 16 && c.outChannels >= 8 &&
         g.output[0] >= 2 && g.output[1] >= 2;
}

void WinogradConv::plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x,
                        const ChannelAddressing& y, const Tensor* w, int threads) {
  shape_ = c;
  xAddr_ = x;
  yAddr_ = y;
  const WindowGeometry& g = c.window;
  tilesH_ = (g.output[0] + 1) / 2;
  tilesW_ = (g.output[1] + 1) / 2;
  tiles_ = c.batch * tilesH_ * tilesW_;
  tasks_ = (tiles_ + kTiles - 1) / kTiles;
  workers_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, tasks_)));
  inBlocks_ = c.inChannels / kChannelPack;
  outBlocks_ = channelBlocks(c.outChannels);
  mPadded_ = outBlocks_ * kChannelPack;
  const int64_t C = c.inChannels, M = c.outChannels;
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
  // Columns past M of the GEMM's product are never written: zero from here on.
  scratchPerWorker_ = kPositions * kTiles * (C + mPadded_) + kTiles * outBlocks_ * 16;
  scratch_.assign(scratchPerWorker_ * workers_, 0.f);
  bias_.assign(mPadded_, 0.f);
}

// V[t][p][c] = (Bt d B)[p] for the 4x4 input patch d of each tile t and channel c, with
// Bt = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]; 4 channels (one NC4HW4 pixel) at a time. A
// tile's 16 positions lie together (the GEMM of position p reads rows 16 * C apart).
void WinogradConv::transformInput(const float* x, int64_t tile0, int64_t tiles, float* v) const {
  const WindowGeometry& g = shape_.window;
  const int64_t H = g.input[0], W = g.input[1], C = shape_.inChannels;
  const int64_t blockStride = xAddr_.spatial * kChannelPack;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t q = tile0 + t, n = q / (tilesH_ * tilesW_), r = q % (tilesH_ * tilesW_);
    const int64_t ih0 = (r / tilesW_) * 2 - g.padBegin[0], iw0 = (r % tilesW_) * 2 - g.padBegin[1];
    const bool inside = ih0 >= 0 && ih0 + 4 <= H && iw0 >= 0 && iw0 + 4 <= W;
    // Offsets of the patch's pixels, -1 in the padding.
    int64_t offset[4][4];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const int64_t ih = ih0 + i, iw = iw0 + j;
        offset[i][j] = inside || (ih >= 0 && ih < H && iw >= 0 && iw < W) ? (ih * W + iw) * kChannelPack : -1;
      }
    const float* xb = x + n * xAddr_.batchStride;
    float* vt = v + t * kPositions * C;
    for (int64_t b = 0; b < inBlocks_; ++b) {
      const float* xc = xb + b * blockStride;
      Float4 d[4][4];
      if (inside) {
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) d[i][j] = loadFloat4(xc + offset[i][j]);
      } else {
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) d[i][j] = offset[i][j] >= 0 ? loadFloat4(xc + offset[i][j]) : splatFloat4(0.f);
      }
      Float4 s[4][4];  // Bt d
      for (int j = 0; j < 4; ++j) {
        s[0][j] = d[0][j] - d[2][j];
        s[1][j] = d[1][j] + d[2][j];
        s[2][j] = d[2][j] - d[1][j];
        s[3][j] = d[1][j] - d[3][j];
      }
      float* out = vt + b * kChannelPack;
      for (int i = 0; i < 4; ++i) {  // (Bt d) B
        storeFloat4(out + (i * 4 + 0) * C, s[i][0] - s[i][2]);
        storeFloat4(out + (i * 4 + 1) * C, s[i][1] + s[i][2]);
        storeFloat4(out + (i * 4 + 2) * C, s[i][2] - s[i][1]);
        storeFloat4(out + (i * 4 + 3) * C, s[i][1] - s[i][3]);
      }
    }
  }
}

// The 2x2 output of each tile t and output block from m[t][p][M4]: At m A + bias,
// At = [1 1 1 0; 0 1 -1 -1], into out[t][block][pixel][lane].
void WinogradConv::transformOutput(const float* m, int64_t tiles, float* out) const {
  for (int64_t t = 0; t < tiles; ++t)
    for (int64_t ob = 0; ob < outBlocks_; ++ob) {
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
  float* m = v + kPositions * kTiles * C;
  float* out = m + kPositions * kTiles * mPadded_;
  const int64_t tile0 = t * kTiles, tiles = std::min(kTiles, tiles_ - tile0);
  transformInput(x, tile0, tiles, v);
  for (int p = 0; p < kPositions; ++p) {
    GemmArgs a;
    a.M = tiles;
    a.N = M;
    a.K = C;
    a.A = v + p * C;
    a.lda = kPositions * C;
    a.packedB = u_ + p * packedSize_;
    a.C = m + p * mPadded_;
    a.ldc = kPositions * mPadded_;
    gemmPackedTile(a, 0, tiles, 0, M);
  }
  transformOutput(m, tiles, out);
  applyFusedActivation(act, out, tiles * outBlocks_ * 16);  // still in cache
  const WindowGeometry& g = shape_.window;
  const int64_t OH = g.output[0], OW = g.output[1], blockStride = yAddr_.spatial * kChannelPack;
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t q = tile0 + i, n = q / (tilesH_ * tilesW_), r = q % (tilesH_ * tilesW_);
    const int64_t oh = (r / tilesW_) * 2, ow = (r % tilesW_) * 2;
    const int64_t rowsHere = std::min<int64_t>(2, OH - oh), colsHere = std::min<int64_t>(2, OW - ow);
    for (int64_t ob = 0; ob < outBlocks_; ++ob) {
      const float* o = out + (i * outBlocks_ + ob) * 16;
      float* yb = y + n * yAddr_.batchStride + ob * blockStride;
      for (int64_t a = 0; a < rowsHere; ++a)
        for (int64_t b = 0; b < colsHere; ++b)
          storeFloat4(yb + ((oh + a) * OW + ow + b) * kChannelPack, loadFloat4(o + (a * 2 + b) * 4));
    }
  }
}

void WinogradConv::run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act) {
  u_ = weights_.get();
  for (int64_t m = 0; m < shape_.outChannels; ++m) bias_[m] = bias ? bias[m] : 0.f;  // padded to whole blocks
  const int workers = workers_;
  pool.parallelFor(workers, [&](int64_t begin, int64_t end) {
    for (int64_t w = begin; w < end; ++w)
      for (int64_t t = w; t < tasks_; t += workers) task(t, x, y, act, static_cast<int>(w));
  }, 1);
}

}  // namespace tessera
