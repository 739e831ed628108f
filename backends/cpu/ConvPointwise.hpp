// Pointwise convs (1x1, stride 1, no padding, one group) with few input channels (up to 24)
// or few outputs (up to 32, from at most 64 inputs), NC4HW4 in and out, as a direct kernel on
// the AVX-512 and AVX2 paths. Through the GEMM a conv of K = 16..64
// input channels spends most of its time outside the multiply-adds (the product tile written,
// re-read into NC4HW4, then activated): PP-OCRv4 det's 16 -> 32 conv at 320x320 ran at 4x its
// memory bound. Here a vector is 4 output pixels x 4 output channels, exactly one NC4HW4
// block's 16 floats, so accumulators are stored as they are: each input block of 4 pixels is
// loaded once, each of its channels spread over the 4 lanes of its pixel by an in-lane
// permute, and multiplied by the channel's weights for 4 output channels (packed repeated
// 4 times). Two groups of 4 pixels share every weight load. On AVX2 a vector is 2 pixels x 4
// channels (the first half of the same packing), 4 pixels a step, a pass's steps in one
// call. Bias, Z and the fused activation are applied to each chunk of pixels while it is in
// cache. The CPU's Conv takes this path for the shapes `suits` accepts (measured against the
// GEMM in ConvPointwise.cpp); the others stay on the GEMM, whose kernels are faster there.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "ops/Conv.hpp"

namespace tessera {

class ThreadPool;

class PointwiseConv {
 public:
  static bool suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y);

  // At resize: the weights (`w` [M, C, 1, 1]) as [C rounded up to 4, zero past C][M/4 blocks]
  // [4 repeats][4 channels], shared by the Session's plans when constant; the pixel chunks.
  void plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y,
            const Tensor* w, int threads);
  // y = act(conv(x, w) + bias + z) (z: y's shape and layout, or null); the padding lanes of y
  // are left for the caller.
  void run(ThreadPool& pool, const float* x, const float* bias, const float* z, float* y, const FusedActivation& act);

 private:
  ConvShape shape_;
  ChannelAddressing xAddr_, yAddr_;
  int64_t chunk_ = 0, chunks_ = 0;  // pixels per task, tasks per image
  PackedWeights weights_;
  AlignedFloats bias_;  // of this run: per output block, 4 channels repeated 4 times
};

}  // namespace tessera
