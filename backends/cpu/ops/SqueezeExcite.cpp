// CPU SqueezeExcite (ops/SqueezeExcite.hpp): the gate of every (n, c) on the calling thread
// (two small matrix-vector products, weights transposed once), then X scaled by it over the
// pool. X and Y on NC4HW4, the pooled vector in whatever layout it comes; without one, X's
// channel means first, over the pool.
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/NC4HW4.hpp"
#include "ops/SqueezeExcite.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

using P = SqueezeExciteParams;

class CpuSqueezeExcite final : public Execution {
 public:
  CpuSqueezeExcite(Backend* b, const SqueezeExciteParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors& inputs, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    selectPackedData(inputs, true, in, out);
    if (P::input(inputs, P::kPooled)) (*in)[P::kPooled] = available[P::kPooled];  // C values: read in place
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    x_ = ChannelAddressing(inputs[P::kX]->shape(), inputs[P::kX]->layout());
    const Tensor* pooled = P::input(inputs, P::kPooled);
    if (pooled) pooled_ = ChannelAddressing(pooled->shape(), pooled->layout());
    means_.assign(pooled ? 0 : x_.batch * roundUpChannels(x_.channels), 0.f);
    if (outputs[0]->layout() != inputs[P::kX]->layout()) return Status::internal("SqueezeExcite needs X and Y in one layout");
    hiddenWidth_ = inputs[P::kW1]->dim(0);
    gate_.assign(x_.batch * roundUpChannels(x_.channels), 0.f);  // padding lanes stay 0
    hidden_.assign(hiddenWidth_, 0.f);
    w1t_.assign(x_.channels * hiddenWidth_, 0.f);
    w2t_.assign(x_.channels * hiddenWidth_, 0.f);
    weightsConstant_ = inputs[P::kW1]->isConstant() && inputs[P::kW2]->isConstant();
    if (weightsConstant_) transposeWeights(inputs);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!P::input(inputs, P::kPooled)) computeMeans(inputs[P::kX]->data<float>());
    computeGates(inputs);
    const float* x = inputs[P::kX]->data<float>();
    float* y = outputs[0]->data<float>();
    const ChannelAddressing a = x_;
    const int64_t lanes = roundUpChannels(a.channels);
    const float* gate = gate_.data();
    if (a.packed) {
      const int64_t blocks = channelBlocks(a.channels);
      cpuPool(*this).parallelFor(a.batch * blocks, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const Float4 g = loadFloat4(gate + (plane / blocks) * lanes + (plane % blocks) * kChannelPack);
          const float* src = x + plane * a.spatial * kChannelPack;
          float* dst = y + plane * a.spatial * kChannelPack;
          for (int64_t s = 0; s < a.spatial; ++s)
            storeFloat4(dst + s * kChannelPack, loadFloat4(src + s * kChannelPack) * g);
        }
      }, 1);
    } else {
      cpuPool(*this).parallelFor(a.batch * a.channels, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const float g = gate[(plane / a.channels) * lanes + plane % a.channels];
          const float* src = x + plane * a.spatial;
          float* dst = y + plane * a.spatial;
          for (int64_t s = 0; s < a.spatial; ++s) dst[s] = src[s] * g;
        }
      }, 1);
    }
    return Status::ok();
  }

 private:
  // W1 and W2 transposed, so both products run as rows added into a vector (loops the
  // compiler vectorises without reordering any sum).
  void transposeWeights(const Tensors& in) {
    const int64_t C = x_.channels, C1 = hiddenWidth_;
    const float* w1 = in[P::kW1]->data<float>();
    const float* w2 = in[P::kW2]->data<float>();
    for (int64_t j = 0; j < C1; ++j)
      for (int64_t c = 0; c < C; ++c) {
        w1t_[c * C1 + j] = w1[j * C + c];
        w2t_[j * C + c] = w2[c * C1 + j];
      }
  }

  // means_[n * lanes + c]: X's mean over the plane, where no pooled vector is given.
  void computeMeans(const float* x) {
    const ChannelAddressing a = x_;
    const int64_t lanes = roundUpChannels(a.channels);
    const float scale = a.spatial > 0 ? 1.f / static_cast<float>(a.spatial) : 0.f;
    float* means = means_.data();
    if (a.packed) {
      const int64_t blocks = channelBlocks(a.channels);
      cpuPool(*this).parallelFor(a.batch * blocks, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const float* src = x + plane * a.spatial * kChannelPack;
          Float4 sum = {0.f, 0.f, 0.f, 0.f};
          for (int64_t s = 0; s < a.spatial; ++s) sum = sum + loadFloat4(src + s * kChannelPack);
          storeFloat4(means + (plane / blocks) * lanes + (plane % blocks) * kChannelPack, sum * scale);
        }
      }, 1);
    } else {
      cpuPool(*this).parallelFor(a.batch * a.channels, [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const float* src = x + plane * a.spatial;
          float sum = 0.f;
          for (int64_t s = 0; s < a.spatial; ++s) sum += src[s];
          means[(plane / a.channels) * lanes + plane % a.channels] = sum * scale;
        }
      }, 1);
    }
  }

  // gate_[n * lanes + c] for every batch and channel: the block's two 1x1 convs.
  void computeGates(const Tensors& in) {
    if (!weightsConstant_) transposeWeights(in);
    const int64_t C = x_.channels, C1 = hiddenWidth_, lanes = roundUpChannels(C);
    const Tensor* pooledTensor = P::input(in, P::kPooled);
    const float* pooled = pooledTensor ? pooledTensor->data<float>() : means_.data();
    const Tensor* bias1 = P::input(in, P::kB1);
    const Tensor* bias2 = P::input(in, P::kB2);
    float* hidden = hidden_.data();
    for (int64_t n = 0; n < x_.batch; ++n) {
      for (int64_t j = 0; j < C1; ++j) hidden[j] = bias1 ? bias1->data<float>()[j] : 0.f;
      for (int64_t c = 0; c < C; ++c) {
        const float p = pooledTensor ? pooled[pooled_.offset(n, c, 0)] : pooled[n * lanes + c];
        const float* row = w1t_.data() + c * C1;
        for (int64_t j = 0; j < C1; ++j) hidden[j] += row[j] * p;
      }
      for (int64_t j = 0; j < C1; ++j) hidden[j] = params_.hidden.activate(hidden[j]);
      float* gate = gate_.data() + n * lanes;
      for (int64_t c = 0; c < C; ++c) gate[c] = bias2 ? bias2->data<float>()[c] : 0.f;
      for (int64_t j = 0; j < C1; ++j) {
        const float h = hidden[j];
        const float* row = w2t_.data() + j * C;
        for (int64_t c = 0; c < C; ++c) gate[c] += row[c] * h;
      }
      for (int64_t c = 0; c < C; ++c) gate[c] = params_.gate.apply(gate[c]);
    }
  }

  SqueezeExciteParams params_;
  ChannelAddressing x_, pooled_;
  int64_t hiddenWidth_ = 0;
  bool weightsConstant_ = false;
  std::vector<float> gate_, hidden_, w1t_, w2t_;
  std::vector<float> means_;  // X's channel means, where no pooled vector is given
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (outputs.size() != 1) return nullptr;
  for (P::Input i : {P::kX, P::kPooled, P::kW1, P::kB1, P::kW2, P::kB2}) {
    const Tensor* t = P::input(inputs, i);
    const bool optional = i == P::kPooled || i == P::kB1 || i == P::kB2;
    if ((!t && !optional) || (t && t->dtype() != DataType::kF32)) return nullptr;
  }
  SqueezeExciteParams p;
  if (!SqueezeExciteParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuSqueezeExcite>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, SqueezeExcite, create);

}  // namespace tessera
