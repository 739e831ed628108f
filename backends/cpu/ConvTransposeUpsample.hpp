// ConvTranspose with a 2x2 kernel and stride 2 (no padding, dilation or groups; NC4HW4 in
// and out): the learnt 2x upsampling of segmentation and detection heads. Each input pixel
// writes its own 2x2 output pixels and no other pixel writes them, so the products go
// straight into y with the bias, with no column buffer and no scatter pass.
//
// The weights are packed as [Cin][kh][output block][kw][4]: for one input pixel and one
// (kh, block) unit, the 8 products are y's 8 contiguous floats (kw 0 and 1 of 4 channels). A
// tile keeps R input pixels x U units in registers over the whole Cin loop, broadcasting each
// input value once per pixel: AVX2 3 pixels x 4 units in 256-bit vectors; AVX-512 8 pixels x
// 3 pairs of units, two units a 512-bit vector (Intel cores multiply-add 512-bit vectors at
// twice the 256-bit rate; on Zen 4 the two widths reach the same peak).
#pragma once
#include <cstdint>
#include <vector>

#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "ops/Conv.hpp"

namespace tessera {

class ThreadPool;

// A 2-D window with a 2x2 kernel, stride 2, no dilation or padding and an output twice the
// input: each input pixel alone writes its own 2x2 output pixels.
bool isUpsample2x2(const WindowGeometry& g);

class Upsample2x2Transpose {
 public:
  // The shape above, and AVX2 or AVX-512 in use (else the GEMM path serves it).
  static bool suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y);

  // At resize: the weights (`w` [Cin, Cout, 2, 2]) packed, shared by the Session's plans when
  // constant; padding channels of the last output block get zero weights.
  void plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y,
            const Tensor* w);
  // y = convTranspose(x, w) + bias (bias may be null); y's padding lanes come out as zeros.
  // y = convTranspose(x, w) + bias, then `act` on each pair of output rows as it is written;
  // the padding lanes of y are left for the caller.
  void run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act);

 private:
  ConvShape shape_;
  ChannelAddressing xAddr_, yAddr_;
  int64_t blocks_ = 0;  // output channel blocks of 4
  PackedWeights weights_;
  AlignedFloats bias_;  // of this run: [kh][block][kw][4], bias per channel, 0 in padding
};

}  // namespace tessera
