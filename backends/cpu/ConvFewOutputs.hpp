// 2-D stride-1 and stride-2 convolutions with at most 12 output channels (a detector's score and box
// heads: 3x3 over 64-256 channels into 4-12) as a direct kernel on the AVX2 and AVX-512
// paths. Winograd and im2col both pad the GEMM's N to 16 columns and pay for transforms or
// a KH*KW-times copy of x that few outputs cannot repay. Here a task copies its band of x's
// rows out of NC4HW4 once, into zero-padded channel rows laid end to end (a "padded grid",
// ConvFewOutputs.cpp), and runs one pass per output block of 4 channels: a register tile is
// 4 channels x 24 grid points, so each weight, broadcast once, feeds three multiply-adds.
// Accumulators are transposed into NC4HW4 pixels as they are stored. A grouped conv whose
// groups are whole blocks of 4-16 outputs (ResNeXt's 3x3 convs of 32 groups) runs each group
// as an image of its own: the GEMM would fill 4-16 columns of a 16-wide panel.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "ops/Conv.hpp"

namespace tessera {

class ThreadPool;

class FewOutputConv {
 public:
  // 2-D, stride 1 or 2, no dilation, a window larger than 1x1 up to 11x11, a non-empty y, x and y
  // in NC4HW4, the AVX2 kernel available, and either one group of 5 or more input channels
  // and 1-12 output channels, or groups of whole 4-channel blocks, 4-16 outputs each.
  static bool suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y);

  // At resize: the weights (`w` [M, C/group, KH, KW]) as [M / 4 blocks][C/group][KH][KW][4], shared by
  // the Session's plans when constant; the bands of output rows (and blocks) a task takes.
  void plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y,
            const Tensor* w, int threads);
  // y = conv(x, w) + bias, then `act`; the padding lanes of y are left for the caller.
  void run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act);

 private:
  ConvShape shape_;
  ChannelAddressing xAddr_, yAddr_;
  int64_t blocks_ = 0;         // output blocks of 4 channels a group: one pass over the band each
  int64_t stride_ = 1;         // 1 or 2, both axes
  int64_t gridWidth_ = 0;      // a padded input row: OW + (KW - 1) / stride
  int64_t phaseStride_ = 0;    // stride 2: between a channel's four phase planes
  int64_t bandRows_ = 0;       // output rows a task
  int64_t bands_ = 0;          // bands per image
  int64_t blocksPerTask_ = 0;  // output blocks a task, and tasks per band
  int64_t blockTasks_ = 0;
  int64_t channelStride_ = 0;  // a channel's padded band in the scratch
  std::vector<int64_t> tapOffset_;  // where tap (kh, kw) reads, from a grid point
  PackedWeights weights_;
  AlignedFloats bias_;     // of this run, padded to whole blocks
  AlignedFloats scratch_;  // per worker: the band's padded input rows, all channels of a group
};

}  // namespace tessera
