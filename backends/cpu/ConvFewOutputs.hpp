// 2-D stride-1 convolutions with at most 12 output channels (a detector's score and box
// heads: 3x3 over 64-256 channels into 4-12) as a direct kernel on the AVX2 and AVX-512
// paths. Winograd and im2col both pad the GEMM's N to 16 columns and pay for transforms or
// a KH*KW-times copy of x that few outputs cannot repay. Here a task copies its band of x's
// rows out of NC4HW4 once, into zero-padded channel rows laid end to end (a "padded grid",
// ConvFewOutputs.cpp), and runs one pass per output block of 4 channels: a register tile is
// 4 channels x 24 grid points, so each weight, broadcast once, feeds three multiply-adds.
// Accumulators are transposed into NC4HW4 pixels as they are stored.
#pragma once
#include <cstdint>

#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "ops/Conv.hpp"

namespace tessera {

class ThreadPool;

class FewOutputConv {
 public:
  // 2-D, one group, stride and dilation 1, a window larger than 1x1 up to 7x7, 5 or more
  // input channels, 1-12 output channels, a non-empty y, x and y in NC4HW4, and the AVX2
  // kernel available.
  static bool suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y);

  // At resize: the weights (`w` [M, C, KH, KW]) as [M / 4 blocks][C][KH][KW][4], shared by
  // the Session's plans when constant; the bands of output rows (and blocks) a task takes.
  void plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y,
            const Tensor* w, int threads);
  // y = conv(x, w) + bias, then `act`; the padding lanes of y are left for the caller.
  void run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act);

 private:
  ConvShape shape_;
  ChannelAddressing xAddr_, yAddr_;
  int64_t blocks_ = 0;         // output blocks of 4 channels: one pass over the band each
  int64_t gridWidth_ = 0;      // a padded input row: OW + KW - 1
  int64_t bandRows_ = 0;       // output rows a task
  int64_t bands_ = 0;          // bands per image
  int64_t blocksPerTask_ = 0;  // output blocks a task, and tasks per band
  int64_t blockTasks_ = 0;
  int64_t channelStride_ = 0;  // a channel's padded band in the scratch
  PackedWeights weights_;
  AlignedFloats bias_;     // of this run, padded to whole blocks
  AlignedFloats scratch_;  // per worker: the band's padded input rows, all channels
};

}  // namespace tessera
