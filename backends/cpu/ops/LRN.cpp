// CPU LRN across channels: for each (n, position) the sum of squares over the channel
// window [c - floor((size-1)/2), c + ceil((size-1)/2)], then
// y = x * (bias + alpha/size * sum)^-beta. 4-D f32 tensors run on NC4HW4, others on NCHW.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/LRN.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuLRN final : public Execution {
 public:
  CpuLRN(Backend* b, const LRNParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>&, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, true, in, out);
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    addr_ = ChannelAddressing(inputs[0]->shape(), inputs[0]->layout());
    if (outputs[0]->layout() != inputs[0]->layout()) return Status::internal("LRN needs X and Y in one layout");
    channelOffset_.resize(addr_.channels);
    for (int64_t c = 0; c < addr_.channels; ++c) channelOffset_[c] = addr_.channel(c);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const float* x = inputs[0]->data<float>();
    float* y = outputs[0]->data<float>();
    const ChannelAddressing a = addr_;
    const int64_t before = (params_.size - 1) / 2, after = params_.size - 1 - before;
    const double k = static_cast<double>(params_.alpha) / static_cast<double>(params_.size);
    const double bias = params_.bias, beta = params_.beta;
    const int64_t* chan = channelOffset_.data();
    cpuPool(*this).parallelFor(a.batch * a.spatial, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t n = i / a.spatial, s = i % a.spatial;
        const float* src = x + n * a.batchStride + s * a.spatialStride;
        float* dst = y + n * a.batchStride + s * a.spatialStride;
        for (int64_t c = 0; c < a.channels; ++c) {
          double sum = 0;
          const int64_t lo = std::max<int64_t>(0, c - before), hi = std::min<int64_t>(a.channels - 1, c + after);
          for (int64_t j = lo; j <= hi; ++j) sum += static_cast<double>(src[chan[j]]) * src[chan[j]];
          dst[chan[c]] = static_cast<float>(src[chan[c]] * std::pow(bias + k * sum, -beta));
        }
      }
    }, 16);
    zeroPaddingLanes(y, a);
    return Status::ok();
  }

 private:
  LRNParams params_;
  ChannelAddressing addr_;
  std::vector<int64_t> channelOffset_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.empty() || !inputs[0] || inputs[0]->dtype() != DataType::kF32) return nullptr;
  LRNParams p;
  if (!LRNParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuLRN>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, LRN, create);

}  // namespace tessera
