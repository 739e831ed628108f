// 3x3 stride-1 convolutions through Winograd's minimal filtering F(2x2, 3x3): each 2x2 tile of
// output is a 4x4 patch of input taken to a transformed space (V = Bt d B), multiplied there
// position by position with the transformed weights (U = G g Gt: 16 GEMMs of
// [tiles x C] by [C x M]), and brought back (Y = At m A). 16 multiply-adds per tile and
// channel pair instead of 36: 2.25x fewer, for some additions in the transforms. The CPU's
// Conv takes this path for the shapes `suits` accepts (docs/cpu-conv-gemm.md).
//
// A dilated 3x3 conv (dilation dh, dw: DeepLab's ASPP, line-segment detectors) is dh x dw
// plain 3x3 convs, one per phase: the outputs whose row is a mod dh and column b mod dw read
// only the inputs on the same grid, every dh-th row and dw-th column from (a - ph, b - pw). A
// tile is 2x2 outputs of one phase, its patch 4x4 inputs of that grid.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "ops/Conv.hpp"

namespace tessera {

class ThreadPool;

class WinogradConv {
 public:
  // 2-D, 3x3, stride 1, any dilation, one group, NC4HW4 in and out, input channels in whole
  // blocks, and big enough that the saved multiply-adds outweigh the transforms.
  static bool suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y);

  // At resize: tiles, per-worker scratch, and the transformed weights (`w` [M, C, 3, 3]),
  // shared by the Session's plans when constant.
  void plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y,
            const Tensor* w, int threads);
  // y = conv(x, w) + bias, then `act`; the padding lanes of y are left for the caller.
  void run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act);

 private:
  void task(int64_t t, const float* x, float* y, const FusedActivation& act, int worker);
  void transformInput(const float* x, int64_t tile0, int64_t tiles, float* v) const;
  void transformOutput(const float* m, int64_t tiles, int64_t ob0, int64_t ob1, float* out) const;
  // Tile q's image and top-left output; its other outputs are a dilation away, and its
  // patch's corner is that output less the padding.
  struct Tile {
    int64_t n, oh0, ow0;
  };
  Tile tileAt(int64_t q) const;

  ConvShape shape_;
  ChannelAddressing xAddr_, yAddr_;
  // A phase's tiles: tilesH_ x tilesW_ (every phase alike; tiles past a phase's last output
  // store nothing), dilation[0] x dilation[1] phases per image.
  int64_t tilesH_ = 0, tilesW_ = 0, tiles_ = 0;
  // Tasks: tileTasks_ runs of tilesPerTask_ tiles, each for every colWidth_ output channels.
  int64_t tileTasks_ = 0, tilesPerTask_ = 0, colWidth_ = 0, tasks_ = 0;
  int64_t inBlocks_ = 0, outBlocks_ = 0, mPadded_ = 0, packedSize_ = 0;
  int64_t positionStride_ = 0;  // floats between V's positions
  int workers_ = 1;
  PackedWeights weights_;  // 16 packed [C x M] matrices, one per transformed position
  const float* u_ = nullptr;
  AlignedFloats bias_;     // of this run, padded to whole blocks
  AlignedFloats scratch_;  // per worker: V [16][C/4][tiles][4], m [tiles][16][M4], out tiles
  int64_t scratchPerWorker_ = 0;
};

}  // namespace tessera
