// CPU BatchNormalization (inference): y = x * a[c] + b[c] with a = scale / sqrt(var + eps)
// and b = B - mean * a, folded once at resize when the statistics are constant.
// 4-D f32 tensors run on NC4HW4, other ranks on NCHW.
#include <cmath>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/BatchNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuBatchNormalization final : public Execution {
 public:
  CpuBatchNormalization(Backend* b, const BatchNormalizationParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, true, in, out);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    addr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    if (outputs[0]->layout() != inputs[0]->layout()) return Status::internal("BatchNormalization needs X and Y in one layout");
    const int64_t lanes = roundUpChannels(addr_.channels);
    scale_.assign(lanes, 0.f);  // padding lanes stay 0
    shift_.assign(lanes, 0.f);
    folded_ = false;
    bool constant = true;
    for (size_t i = 1; i < 5; ++i) constant = constant && inputs[i]->isConstant() && inputs[i]->data();
    if (constant) {
      fold(inputs);
      folded_ = true;
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!folded_) fold(inputs);
    const float* x = inputs[0]->data<float>();
    float* y = outputs[0]->data<float>();
    const ChannelAddressing a = addr_;
    const float* scale = scale_.data();
    const float* shift = shift_.data();
    if (a.packed) {
      const int64_t blocks = channelBlocks(a.channels);
      cpuPool(*this).parallelFor(a.batch * blocks, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const int64_t block = plane % blocks;
          const float* sc = scale + block * kChannelPack;
          const float* sh = shift + block * kChannelPack;
          const float* src = x + plane * a.spatial * kChannelPack;
          float* dst = y + plane * a.spatial * kChannelPack;
          for (int64_t s = 0; s < a.spatial; ++s)
            for (int l = 0; l < kChannelPack; ++l) dst[s * kChannelPack + l] = src[s * kChannelPack + l] * sc[l] + sh[l];
        }
      }, 1);
      zeroPaddingLanes(y, a);
    } else {
      cpuPool(*this).parallelFor(a.batch * a.channels, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const int64_t c = plane % a.channels;
          const float sc = scale[c], sh = shift[c];
          const float* src = x + plane * a.spatial;
          float* dst = y + plane * a.spatial;
          for (int64_t s = 0; s < a.spatial; ++s) dst[s] = src[s] * sc + sh;
        }
      }, 1);
    }
    return Status::ok();
  }

 private:
  void fold(const Tensors& inputs) {
    const float* gamma = inputs[1]->data<float>();
    const float* beta = inputs[2]->data<float>();
    const float* mean = inputs[3]->data<float>();
    const float* var = inputs[4]->data<float>();
    for (int64_t c = 0; c < addr_.channels; ++c) {
      const double a = gamma[c] / std::sqrt(static_cast<double>(var[c]) + params_.epsilon);
      scale_[c] = static_cast<float>(a);
      shift_[c] = static_cast<float>(beta[c] - mean[c] * a);
    }
  }

  BatchNormalizationParams params_;
  ChannelAddressing addr_;
  bool folded_ = false;
  std::vector<float> scale_, shift_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.size() < 5 || outputs.size() != 1) return nullptr;
  for (size_t i = 0; i < 5; ++i)
    if (!inputs[i] || inputs[i]->dtype() != DataType::kF32) return nullptr;
  BatchNormalizationParams p;
  if (!BatchNormalizationParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuBatchNormalization>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, BatchNormalization, create);

}  // namespace tessera
