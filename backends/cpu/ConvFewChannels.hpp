// 2-D convolutions with at most 4 input channels (a network's first conv on an RGB image) as
// a direct kernel on the AVX-512 and AVX2 paths: im2col would copy each pixel KH*KW times for
// a GEMM whose K is only C*KH*KW (27 for 3x3 RGB). Here 16 output channels are one 512-bit
// vector (two 256-bit ones on AVX2): each input value is broadcast once per tap and multiplied
// by the tap's 16 weights, twelve output pixels at a time (six on AVX2), and the accumulators
// are transposed into NC4HW4 blocks as they are stored. 3-wide windows with stride 1 or 2 and
// 7-wide ones with stride 2 (ResNet's stem) over NCHW unroll every tap into straight-line
// code with constant displacements; a row's last
// pixels are one more tile that overlaps the one before it. The rows themselves are in
// ConvFewChannelsAvx512.cpp and ConvFewChannelsAvx2.cpp; the CPU's Conv takes this path for
// the shapes `suits` accepts.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "ops/Conv.hpp"

namespace tessera {

class ThreadPool;

class FewChannelConv {
 public:
  // 2-D, one group, 1-4 input channels, and the AVX-512 or AVX2 kernels in use: the Conv then
  // asks for x as it comes (NCHW, as a user's image does: no conversion into NC4HW4 before it).
  static bool takes(const ConvShape& c);
  // And y in NC4HW4 (x in either layout).
  static bool suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y);

  // At resize: the weights (`w` [M, C, KH, KW]) as [M/16][tap][C][16], shared by the
  // Session's plans when constant.
  void plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y,
            const Tensor* w);
  // y = conv(x, w) + bias, then `act`; the padding lanes of y are left for the caller.
  void run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act);

 private:
  ConvShape shape_;
  ChannelAddressing xAddr_, yAddr_;
  int64_t groups16_ = 0;  // output channels in groups of 16
  int64_t owLo_ = 0, owHi_ = 0;  // output columns whose every tap column is inside x
  PackedWeights weights_;
  AlignedFloats bias_;  // of this run, padded to groups of 16
};

}  // namespace tessera
