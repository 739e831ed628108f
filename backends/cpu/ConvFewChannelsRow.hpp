// The row kernels of FewChannelConv (ConvFewChannels.hpp), one file per instruction set:
// ConvFewChannelsAvx512.cpp and ConvFewChannelsAvx2.cpp. Each computes one output row of one
// group of 16 output channels, from weights packed as [tap][C][16] for the group.
#pragma once
#include <cstdint>

#include "backends/cpu/RegisterClamp.hpp"

namespace tessera {

constexpr int kFewChannelGroup = 16;          // output channels a row kernel does at once
constexpr int kFewChannelMaxKernelRows = 16;  // window rows the row kernels take

// Everything one output row needs.
struct FewChannelRowGeometry {
  int64_t H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw;
  int64_t px, cs;  // x's pixel and channel strides: 4 and 1 (NC4HW4), or 1 and H*W (NCHW)
  int64_t outBlocks, yBlockStride, owLo, owHi;
  RegisterClamp clamp;  // the fused Relu or Clip, applied in registers before each store
};

// Output row `oh` of channel group `g16` (y's NC4HW4 blocks 4*g16 .. 4*g16+3, those that
// exist), C = 1..4 input channels: x and y at their batch, w the group's weights, bias all
// of them (padded to 16s). `step` is the stride for a window over NCHW without dilation that
// the row kernels unroll (3 wide at stride 1 or 2, 7 wide at stride 2), 0 otherwise.
void fewChannelRowAvx512(const FewChannelRowGeometry& g, int64_t C, int step, const float* x, const float* w,
                         const float* bias, float* y, int64_t oh, int64_t g16);
void fewChannelRowAvx2(const FewChannelRowGeometry& g, int64_t C, int step, const float* x, const float* w,
                       const float* bias, float* y, int64_t oh, int64_t g16);

}  // namespace tessera
