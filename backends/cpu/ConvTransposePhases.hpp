// ConvTranspose as one GEMM per output phase (sub-pixel decomposition), for windows whose taps
// overlap (kernel > stride: the 3x3 stride-2 upsampling of decoders and style-transfer nets,
// any stride-1 ConvTranspose).
//
// Along an axis of stride s, output o takes the taps k with (o + padBegin - k * dilation) a
// multiple of s, from input (o + padBegin - k * dilation) / s: which taps depends only on
// o mod s, its phase. The outputs of one phase (every s-th along each axis) are a regular grid
// on which each tap reads the input at a fixed offset, so a phase is a plain convolution:
// A = [phase outputs x (taps, input channels)] gathered from x, B = the phase's taps of W,
// packed once. Each output is one phase's, written once with its bias and activation; no
// column buffer, no scatter-add. GEMM + col2im before it (a [input positions x Cout * taps]
// buffer read back channel by channel) took 4x as long on a 3x3 stride-2 64 -> 32 at 128x128
// (docs/cpu-conv-gemm.md).
#pragma once
#include <cstdint>
#include <vector>

#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "backends/cpu/PackedConstants.hpp"
#include "ops/Conv.hpp"

namespace tessera {

class ThreadPool;

class ConvTransposePhases {
 public:
  // At resize. `window` is the op's window padded to 3 spatial dims (WindowGeometry::padTo3D),
  // `w` [Cin, Cout / group, k...]: packed once for the Session's plans when constant.
  void plan(PackedConstants& cache, int threads, const ConvShape& c, const WindowGeometry& window,
            const ChannelAddressing& x, const ChannelAddressing& y, const Tensor* w);
  // y = convTranspose(x, w) + bias (bias may be null), then `act`; NC4HW4 padding lanes of y
  // are left for the caller.
  void run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act);

 private:
  struct Tap {
    int64_t index = 0;   // in W's taps, (kd * KH + kh) * KW + kw
    int64_t offset[3];   // input = phase grid index + offset, per axis
  };
  struct Phase {
    int64_t first[3];    // its first output along each axis
    int64_t count[3];    // its outputs along each axis
    std::vector<Tap> taps;
    int64_t K = 0;       // taps x input channels of a group
    int64_t packed = 0;  // floats into a group's packed B
  };
  struct Task {
    int64_t phase = 0, begin = 0, rows = 0;  // outputs [begin, begin + rows) of the phase
  };

  void packWeights(const float* w, float* packed) const;
  void runTask(const Task& t, int64_t n, int64_t g, const float* x, const float* bias, float* y,
               const FusedActivation& act, float* scratch) const;

  ConvShape shape_;
  WindowGeometry window_;
  ChannelAddressing xAddr_, yAddr_;
  std::vector<Phase> phases_;
  std::vector<Task> tasks_;  // of one (batch, group)
  int64_t groupPacked_ = 0;  // floats of one group's packed B (all phases)
  int64_t scratchPerWorker_ = 0;
  int workers_ = 1;
  PackedWeights weights_;
  AlignedFloats scratch_;
  const float* packedB_ = nullptr;  // weights_ of this run
};

}  // namespace tessera
