// CPU GridSample (f32, NCHW). The taps of a grid point (pixel offsets and weights, padding
// already applied) do not depend on the channel, so each point computes them once and then
// walks the C planes. Semantics: ops/GridSample.hpp.
#include <algorithm>
#include <cmath>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/GridSample.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

struct Taps {
  int count = 0;
  int64_t offset[16];
  float weight[16];
};

// Where reflection padding mirrors along an axis of `len` pixels.
struct AxisBounds {
  float lo, hi;
  AxisBounds(int64_t len, bool align)
      : lo(align ? 0.f : -0.5f), hi(align ? static_cast<float>(len - 1) : static_cast<float>(len) - 0.5f) {}
};

float denormalize(float v, int64_t len, bool align) {
  return align ? (v + 1.f) / 2.f * static_cast<float>(len - 1) : ((v + 1.f) * static_cast<float>(len) - 1.f) / 2.f;
}

// Mirrors v at the nearer edge of [lo, hi] until it lies inside.
float reflect(float v, float lo, float hi) {
  const float range = hi - lo;
  if (!(range > 0.f)) return lo;  // one pixel with align_corners: every point is that pixel
  if (v >= lo && v <= hi) return v;
  const float d = v < lo ? lo - v : v - hi;
  const float flips = std::floor(d / range);
  const float r = d - flips * range;
  const bool even = std::fmod(flips, 2.f) == 0.f;
  return v < lo ? (even ? lo + r : hi - r) : (even ? hi - r : lo + r);
}

// The pixel index a tap at integer position i reads, or -1 for a zero (zeros padding).
int64_t padIndex(int64_t i, int64_t len, const AxisBounds& b, GridSamplePadding padding) {
  if (padding == GridSamplePadding::kZeros) return i >= 0 && i < len ? i : -1;
  if (padding == GridSamplePadding::kReflection)
    i = static_cast<int64_t>(reflect(static_cast<float>(i), b.lo, b.hi));
  return std::min<int64_t>(std::max<int64_t>(i, 0), len - 1);  // border (and float slack)
}

// Keys cubic convolution weights (A = -0.75) of the 4 taps around a point at fraction t.
void cubicWeights(float t, float w[4]) {
  const float A = -0.75f;
  auto near = [&](float d) { return ((A + 2.f) * d - (A + 3.f)) * d * d + 1.f; };          // |d| <= 1
  auto far = [&](float d) { return ((A * d - 5.f * A) * d + 8.f * A) * d - 4.f * A; };     // 1 < |d| < 2
  w[0] = far(t + 1.f);
  w[1] = near(t);
  w[2] = near(1.f - t);
  w[3] = far(2.f - t);
}

Taps gridTaps(const GridSampleParams& p, float gx, float gy, int64_t H, int64_t W) {
  const AxisBounds bx(W, p.alignCorners), by(H, p.alignCorners);
  float x = denormalize(gx, W, p.alignCorners), y = denormalize(gy, H, p.alignCorners);
  if (p.mode == GridSampleMode::kNearest) {
    x = std::nearbyint(x);  // the default rounding mode: half to even
    y = std::nearbyint(y);
  }
  if (p.padding == GridSamplePadding::kReflection) {  // the same taps as mirroring each one
    x = reflect(x, bx.lo, bx.hi);
    y = reflect(y, by.lo, by.hi);
  }
  // Points farther out read only zeros or the border's values; clamping them keeps the
  // integer conversions below defined without changing what any tap reads (NaN reads as far).
  auto tame = [](float v, int64_t len) { return v >= -16.f ? std::min(v, static_cast<float>(len + 16)) : -16.f; };
  x = tame(x, W);
  y = tame(y, H);
  const float fx = std::floor(x), fy = std::floor(y);
  int64_t ix[4], iy[4];
  float wx[4], wy[4];
  int n = 1;
  if (p.mode == GridSampleMode::kNearest) {
    ix[0] = static_cast<int64_t>(x);
    iy[0] = static_cast<int64_t>(y);
    wx[0] = wy[0] = 1.f;
  } else if (p.mode == GridSampleMode::kBilinear) {
    n = 2;
    ix[0] = static_cast<int64_t>(fx), ix[1] = ix[0] + 1;
    iy[0] = static_cast<int64_t>(fy), iy[1] = iy[0] + 1;
    wx[1] = x - fx, wx[0] = 1.f - wx[1];
    wy[1] = y - fy, wy[0] = 1.f - wy[1];
  } else {
    n = 4;
    for (int k = 0; k < 4; ++k) {
      ix[k] = static_cast<int64_t>(fx) - 1 + k;
      iy[k] = static_cast<int64_t>(fy) - 1 + k;
    }
    cubicWeights(x - fx, wx);
    cubicWeights(y - fy, wy);
  }
  Taps t;
  for (int a = 0; a < n; ++a) {
    const int64_t row = padIndex(iy[a], H, by, p.padding);
    if (row < 0) continue;
    for (int b = 0; b < n; ++b) {
      const int64_t col = padIndex(ix[b], W, bx, p.padding);
      if (col < 0) continue;
      t.offset[t.count] = row * W + col;
      t.weight[t.count++] = wy[a] * wx[b];
    }
  }
  return t;
}

class CpuGridSample final : public Execution {
 public:
  CpuGridSample(Backend* b, const GridSampleParams& p) : Execution(b), params_(p) {}

  // Half-precision data (f16, bf16) is sampled in f32; the Session converts around it.
  void selectDataTypes(const std::vector<DataType>&, const Tensors&, std::vector<DataType>* in,
                       std::vector<DataType>* out) const override {
    (*in)[0] = (*in)[1] = DataType::kF32;
    (*out)[0] = DataType::kF32;
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Shape& xs = inputs[0]->shape();
    const Shape& ys = outputs[0]->shape();
    const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], Ho = ys[2], Wo = ys[3];
    const float* x = inputs[0]->data<float>();
    const float* grid = inputs[1]->data<float>();
    float* y = outputs[0]->data<float>();
    const int64_t plane = Ho * Wo;
    cpuPool(*this).parallelFor(N * Ho, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / Ho;
        for (int64_t j = 0; j < Wo; ++j) {
          const float* g = grid + (row * Wo + j) * 2;
          const Taps t = gridTaps(params_, g[0], g[1], H, W);
          const int64_t at = (row - n * Ho) * Wo + j;
          for (int64_t c = 0; c < C; ++c) {
            const float* src = x + (n * C + c) * H * W;
            float sum = 0.f;
            for (int k = 0; k < t.count; ++k) sum += t.weight[k] * src[t.offset[k]];
            y[(n * C + c) * plane + at] = sum;
          }
        }
      }
    });
    return Status::ok();
  }

 private:
  GridSampleParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  for (const Tensor* t : {inputs[0], inputs[1]})
    if (t->dtype() != DataType::kF32 && t->dtype() != DataType::kF16 && t->dtype() != DataType::kBF16) return nullptr;
  if (inputs[0]->rank() != 4 || inputs[1]->rank() != 4) return nullptr;
  GridSampleParams p;
  if (!GridSampleParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuGridSample>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, GridSample, create);

}  // namespace tessera
