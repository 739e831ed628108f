// ConvTranspose with a 2x2 kernel and stride 2 (no padding, dilation or groups) onto 1 to 3
// output channels, NC4HW4 in and NCHW out: the last upsampling of a segmentation head (PP-OCRv4
// det's 24 -> 1 probability map at 320x320 -> 640x640). As a GEMM its product is 4 columns wide
// and ran at ~7 GFLOP/s, about 3x the time its bytes take.
//
// A 512-bit vector holds 4 input pixels x the 4 channels of one input block. For each output
// channel and tap (kh, kw) an accumulator multiplies it by that block's 4 weights (repeated per
// pixel), over all blocks; then a channel's four tap accumulators are summed across their
// channel lanes into 4 pixels x 4 taps and split into the two output rows those taps write.
// The last block's padding lanes are masked off at the load (producers may leave anything in
// them). On AVX2 the same at half the width: 2 pixels x 4 channels a 256-bit vector (det's
// 24 -> 1 at 640x640 on a Zen 3: 5.2 ms on the GEMM, 0.9 ms here). The portable path uses
// the GEMM.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "ops/Conv.hpp"

namespace tessera {

class ThreadPool;

class Upsample2x2FewOutputs {
 public:
  static constexpr int64_t kMaxOutputs = 3;  // 4 and more are NC4HW4 (ConvTransposeUpsample.hpp)

  static bool suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y);

  // At resize: the weights (`w` [Cin, Cout, 2, 2]) as [Cin blocks][Cout][tap][4 pixels][4
  // channels], zero past Cin, shared by the Session's plans when constant.
  void plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y,
            const Tensor* w);
  // y = act(convTranspose(x, w) + bias) (bias may be null), each pair of output rows activated
  // as it is written.
  void run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act);

 private:
  ConvShape shape_;
  ChannelAddressing xAddr_, yAddr_;
  PackedWeights weights_;
};

}  // namespace tessera
