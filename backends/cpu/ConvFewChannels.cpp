#include "backends/cpu/ConvFewChannels.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "backends/cpu/ClaimedTasks.hpp"
#include "backends/cpu/ConvFewChannelsRow.hpp"
#include "backends/cpu/CpuIsa.hpp"
#include "backends/cpu/FusedActivationPass.hpp"
#include "tessera/ThreadPool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define TESSERA_FEW_CHANNELS_X86 1
#endif

namespace tessera {
namespace {

constexpr int kGroup = kFewChannelGroup;

}  // namespace

bool FewChannelConv::takes(const ConvShape& c) {
#ifdef TESSERA_FEW_CHANNELS_X86
  return cpuIsa() != CpuIsa::kGeneric && c.window.rank == 2 && c.group == 1 && c.inChannels <= 4 &&
         c.window.kernel[0] <= kFewChannelMaxKernelRows;
#else
  (void)c;
  return false;
#endif
}

bool FewChannelConv::suits(const ConvShape& c, const ChannelAddressing& x, const ChannelAddressing& y) {
  (void)x;  // either layout
  return takes(c) && y.packed;
}

void FewChannelConv::plan(PackedConstants& cache, const ConvShape& c, const ChannelAddressing& x,
                          const ChannelAddressing& y, const Tensor* w) {
  shape_ = c;
  xAddr_ = x;
  yAddr_ = y;
  groups16_ = (c.outChannels + kGroup - 1) / kGroup;
  const WindowGeometry& g = c.window;
  const int64_t taps = g.kernel[0] * g.kernel[1], C = c.inChannels, M = c.outChannels;
  // Columns whose taps all fall inside x: iw = ow*sw - pw + kw*dw within [0, W).
  owLo_ = std::min<int64_t>((g.padBegin[1] + g.stride[1] - 1) / g.stride[1], g.output[1]);
  const int64_t last = g.input[1] - 1 - (g.kernel[1] - 1) * g.dilation[1] + g.padBegin[1];
  owHi_ = std::max(owLo_, std::min<int64_t>(last >= 0 ? last / g.stride[1] + 1 : 0, g.output[1]));
  weights_.plan(cache, {w}, "FewChannelConv C" + std::to_string(C) + " M" + std::to_string(M),
                groups16_ * taps * C * kGroup, [w, taps, C, M](float* dst) {
                  const float* src = w->data<float>();
                  for (int64_t m = 0; m < M; ++m)
                    for (int64_t ch = 0; ch < C; ++ch)
                      for (int64_t t = 0; t < taps; ++t)
                        dst[(((m / kGroup) * taps + t) * C + ch) * kGroup + m % kGroup] = src[(m * C + ch) * taps + t];
                });
  bias_.assign(groups16_ * kGroup, 0.f);
}

void FewChannelConv::run(ThreadPool& pool, const float* x, const float* bias, float* y, const FusedActivation& act) {
#ifdef TESSERA_FEW_CHANNELS_X86
  const float* w = weights_.get();
  for (int64_t m = 0; m < shape_.outChannels; ++m) bias_[m] = bias ? bias[m] : 0.f;
  const WindowGeometry& wg = shape_.window;
  FewChannelRowGeometry g;
  g.H = wg.input[0], g.W = wg.input[1], g.OH = wg.output[0], g.OW = wg.output[1];
  g.KH = wg.kernel[0], g.KW = wg.kernel[1], g.sh = wg.stride[0], g.sw = wg.stride[1];
  g.dh = wg.dilation[0], g.dw = wg.dilation[1], g.ph = wg.padBegin[0], g.pw = wg.padBegin[1];
  g.px = xAddr_.packed ? 4 : 1;
  g.cs = xAddr_.packed ? 1 : g.H * g.W;
  g.outBlocks = channelBlocks(shape_.outChannels);
  g.yBlockStride = yAddr_.spatial * 4;
  g.owLo = owLo_;
  g.owHi = owHi_;
  g.clamp = RegisterClamp::of(act, false);
  const int64_t C = shape_.inChannels, taps = g.KH * g.KW, rows = shape_.batch * groups16_ * g.OH;
  // The windows the row kernels unroll (ConvFewChannelsRow.hpp).
  const bool unrolled = g.px == 1 && g.dw == 1 && ((g.KW == 3 && (g.sw == 1 || g.sw == 2)) || (g.KW == 7 && g.sw == 2));
  const int step = unrolled ? static_cast<int>(g.sw) : 0;
  const auto row = cpuIsa() == CpuIsa::kAvx512 ? fewChannelRowAvx512 : fewChannelRowAvx2;
  runClaimedRanges(pool, rows, 2, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      // A row's groups next to each other: a thread's share is a band of rows, all channels.
      const int64_t g16 = r % groups16_, oh = (r / groups16_) % g.OH, n = r / (g.OH * groups16_);
      const float* xb = x + n * xAddr_.batchStride;
      const float* wg16 = w + g16 * taps * C * kGroup;
      float* yb = y + n * yAddr_.batchStride;
      row(g, C, step, xb, wg16, bias_.data(), yb, oh, g16);
      const int64_t blocks = std::min<int64_t>(4, g.outBlocks - g16 * 4);
      if (g.clamp.any()) continue;  // done in registers
      for (int64_t q = 0; q < blocks; ++q)  // the row, still in cache
        applyFusedActivation(act, yb + (g16 * 4 + q) * g.yBlockStride + oh * g.OW * 4, g.OW * 4);
    }
  });
#else
  (void)pool, (void)x, (void)bias, (void)y, (void)act;
#endif
}

}  // namespace tessera
