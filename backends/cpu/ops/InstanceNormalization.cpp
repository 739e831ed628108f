// CPU InstanceNormalization: per (n, c) plane, mean and variance (accumulated in double),
// then y = (x - mean) / sqrt(var + eps) * scale[c] + B[c]. 4-D f32 tensors run on NC4HW4,
// where a plane holds 4 channels in its lanes; other ranks on NCHW.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/LaneSums.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/InstanceNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// One plane of L lanes (`channels` of them real, the rest padding, written as 0).
template <int L>
void normalizePlane(const float* src, float* dst, int64_t n, int64_t channels, const float* scale, const float* bias,
                    float eps) {
  const double zero[L] = {};
  double mean[L], sq[L];
  laneSums<L, false>(src, n, zero, mean);
  for (int l = 0; l < L; ++l) mean[l] /= static_cast<double>(n);
  laneSums<L, true>(src, n, mean, sq);
  float k[L] = {}, shift[L] = {};
  for (int l = 0; l < channels; ++l) {
    const double inv = 1.0 / std::sqrt(sq[l] / static_cast<double>(n) + eps);
    k[l] = static_cast<float>(inv * scale[l]);
    shift[l] = static_cast<float>(bias[l] - mean[l] * inv * scale[l]);
  }
  for (int64_t s = 0; s < n; ++s)
    for (int l = 0; l < L; ++l) dst[s * L + l] = l < channels ? src[s * L + l] * k[l] + shift[l] : 0.f;
}

class CpuInstanceNormalization final : public Execution {
 public:
  CpuInstanceNormalization(Backend* b, const InstanceNormalizationParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, true, in, out);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    addr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    if (outputs[0]->layout() != inputs[0]->layout())
      return Status::internal("InstanceNormalization needs its input and output in one layout");
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const float* x = inputs[0]->data<float>();
    const float* scale = inputs[1]->data<float>();
    const float* bias = inputs[2]->data<float>();
    float* y = outputs[0]->data<float>();
    const ChannelAddressing a = addr_;
    const int L = a.packed ? kChannelPack : 1;
    const int64_t blocks = a.packed ? channelBlocks(a.channels) : a.channels;
    const float eps = params_.epsilon;
    cpuPool(*this).parallelFor(a.batch * blocks, [&](int64_t begin, int64_t end) {
      for (int64_t plane = begin; plane < end; ++plane) {
        const int64_t c0 = plane % blocks * L;
        const float* src = x + plane * a.spatial * L;
        float* dst = y + plane * a.spatial * L;
        if (L == kChannelPack)
          normalizePlane<kChannelPack>(src, dst, a.spatial, std::min<int64_t>(L, a.channels - c0), scale + c0,
                                       bias + c0, eps);
        else
          normalizePlane<1>(src, dst, a.spatial, 1, scale + c0, bias + c0, eps);
      }
    }, 1);
    return Status::ok();
  }

 private:
  InstanceNormalizationParams params_;
  ChannelAddressing addr_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 3) return nullptr;
  for (size_t i = 0; i < 3; ++i)
    if (!inputs[i] || inputs[i]->dtype() != DataType::kF32) return nullptr;
  InstanceNormalizationParams p;
  if (!InstanceNormalizationParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuInstanceNormalization>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, InstanceNormalization, create);

}  // namespace tessera
