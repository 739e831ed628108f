// A Conv's fused activation (ops/FusedActivation.hpp), and the scale and shift that may follow
// it, applied in place to output the conv has just written; padding lanes of NC4HW4 outputs
// are zeroed again afterwards by the caller (the activation of 0 need not be 0).
#pragma once
#include <algorithm>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/RegisterClamp.hpp"
#include "backends/cpu/VectorMath.hpp"
#include "ops/FusedActivation.hpp"

namespace tessera {

// y[i * stride] = activation(y[i * stride]) for i < count, on the calling thread: meant for
// the tile a conv task has just written, still in cache. One loop per kind, so the compiler
// sees a plain elementwise loop (and vectorises the contiguous ones).
template <typename F>
void activateRange(float* y, int64_t count, int64_t stride, F f) {
  if (stride == 1) {
    for (int64_t i = 0; i < count; ++i) y[i] = f(y[i]);
  } else {
    for (int64_t i = 0; i < count; ++i) y[i * stride] = f(y[i * stride]);
  }
}

// y[i * stride] = fn(y[i * stride]) through a vectorised array function (VectorMath.hpp); a
// strided range is gathered into a small buffer first, so every layout gets the same values.
template <typename ArrayFn>
inline void vectorisedRange(float* y, int64_t count, int64_t stride, ArrayFn fn) {
  if (stride == 1) return fn(y, y, count);
  constexpr int64_t kBlock = 256;
  float buf[kBlock];
  for (int64_t i0 = 0; i0 < count; i0 += kBlock) {
    const int64_t m = std::min(kBlock, count - i0);
    float* p = y + i0 * stride;
    for (int64_t i = 0; i < m; ++i) buf[i] = p[i * stride];
    fn(buf, buf, m);
    for (int64_t i = 0; i < m; ++i) p[i * stride] = buf[i];
  }
}

// Swish, v * Sigmoid(alpha * v), in one vectorised pass (a strided range through a buffer). A
// pass of alpha * v into a buffer, the sigmoid, and a pass multiplying it back had taken 0.7 of
// the sigmoid's time again (EfficientNet's and YOLO's convs each end in one).
inline void swishRange(float* y, int64_t count, int64_t stride, float alpha) {
  vectorisedRange(y, count, stride, [alpha](const float* x, float* out, int64_t n) { vectorSwish(x, out, n, alpha); });
}

// The activation alone (FusedActivation::activate), without the affine that may follow it.
inline void applyActivationKind(const FusedActivation& a, float* y, int64_t count, int64_t stride) {
  const float alpha = a.alpha, beta = a.beta;
  switch (a.kind) {
    case FusedActivation::kNone: return;
    // max(0, min(1, .)) in this order compiles to maxps/minps (the other order keeps a branch
    // per element), and matches the CPU's own Relu / Clip / HardSigmoid / HardSwish bit for bit.
    case FusedActivation::kRelu: return activateRange(y, count, stride, [](float v) { return std::max(0.f, v); });
    case FusedActivation::kClip:
      return activateRange(y, count, stride, [=](float v) { return std::max(alpha, std::min(beta, v)); });
    case FusedActivation::kHardSwish:
      if (stride == 1) return vectorHardSwish(y, y, count);
      return activateRange(y, count, stride,
                           [](float v) { return v * std::max(0.f, std::min(1.f, (v + 3.f) * (1.f / 6.f))); });
    case FusedActivation::kHardSigmoid:
      return activateRange(y, count, stride, [=](float v) { return std::max(0.f, std::min(1.f, alpha * v + beta)); });
    case FusedActivation::kSigmoid: return vectorisedRange(y, count, stride, vectorSigmoid);
    case FusedActivation::kSwish: return swishRange(y, count, stride, alpha);
    case FusedActivation::kGelu: return vectorisedRange(y, count, stride, vectorGelu);
    case FusedActivation::kGeluTanh: return vectorisedRange(y, count, stride, vectorGeluTanh);
    default: return activateRange(y, count, stride, [&a](float v) { return a.activate(v); });
  }
}

// HardSwish then scale and shift in one pass: the pair PP-LCNet-style backbones put after
// nearly every conv (the other kinds take a second pass over the tile, still in cache).
inline void applyFusedActivation(const FusedActivation& a, float* y, int64_t count, int64_t stride = 1) {
  if (!a.hasAffine()) return applyActivationKind(a, y, count, stride);
  const float scale = a.scale, shift = a.shift;
  if (a.kind == FusedActivation::kHardSwish) {
    if (stride == 1) return vectorHardSwishAffine(y, y, count, scale, shift);
    return activateRange(y, count, stride, [=](float v) {
      return v * std::max(0.f, std::min(1.f, (v + 3.f) * (1.f / 6.f))) * scale + shift;
    });
  }
  applyActivationKind(a, y, count, stride);
  activateRange(y, count, stride, [=](float v) { return v * scale + shift; });
}

// A Conv's Z input (ops/Conv.hpp), stored in y's layout: y[i * stride] += z[i * stride], on
// the tile just written, before its activation.
inline void addSumRange(float* y, const float* z, int64_t count, int64_t stride = 1) {
  if (stride == 1) {
    for (int64_t i = 0; i < count; ++i) y[i] += z[i];
  } else {
    for (int64_t i = 0; i < count; ++i) y[i * stride] += z[i * stride];
  }
}

// y = activation(y + z) over a whole output, in parallel cache-sized chunks: for conv kernels
// that write their output (with its bias, without the activation) before Z can be added.
// The same traffic as the Add it replaces.
inline void addSumAndActivate(ThreadPool& pool, float* y, const float* z, int64_t count, const FusedActivation& a) {
  constexpr int64_t kChunk = 8192;
  pool.parallelFor((count + kChunk - 1) / kChunk, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t i0 = c * kChunk, n = std::min(kChunk, count - i0);
      addSumRange(y + i0, z + i0, n);
      applyFusedActivation(a, y + i0, n);
    }
  }, 1);
}

}  // namespace tessera
