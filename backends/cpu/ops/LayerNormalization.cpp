// CPU LayerNormalization: each of the outer = prod(shape[:axis]) rows of
// inner = prod(shape[axis:]) values is normalised with its own mean and variance (double
// accumulation), then scaled and shifted by Scale and B expanded to the row shape. NCHW.
#include <cmath>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/LaneSums.hpp"
#include "ops/LayerNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// Writes `t` broadcast (numpy rules, right-aligned) to `target` into dst (row-major).
void expandTo(const Tensor& t, const Shape& target, float* dst) {
  const float* src = t.data<float>();
  const int rank = static_cast<int>(target.size());
  const int offset = rank - t.rank();
  std::vector<int64_t> strides(rank, 0);  // t's stride per target dimension, 0 if broadcast
  int64_t stride = 1;
  for (int d = t.rank() - 1; d >= 0; --d) {
    strides[d + offset] = t.dim(d) == 1 ? 0 : stride;
    stride *= t.dim(d);
  }
  const int64_t count = elementCount(target);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, at = 0;
    for (int d = rank - 1; d >= 0; --d) {
      at += (rest % target[d]) * strides[d];
      rest /= target[d];
    }
    dst[i] = src[at];
  }
}

class CpuLayerNormalization final : public Execution {
 public:
  CpuLayerNormalization(Backend* b, const LayerNormalizationParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors&) override {
    const Tensor& x = *inputs[0];
    int64_t axis = 0;
    if (!normalizeAxis(params_.axis, x.rank(), &axis)) return Status::invalid("axis out of range");
    rowShape_.assign(x.shape().begin() + axis, x.shape().end());
    inner_ = elementCount(rowShape_);
    outer_ = inner_ == 0 ? 0 : x.elementCount() / inner_;
    scale_.assign(inner_, 1.f);
    bias_.assign(inner_, 0.f);
    expanded_ = false;
    const bool biasConstant = inputs.size() < 3 || !inputs[2] || (inputs[2]->isConstant() && inputs[2]->data());
    if (inputs[1]->isConstant() && inputs[1]->data() && biasConstant) {
      expand(inputs);
      expanded_ = true;
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (!expanded_) expand(inputs);
    const float* x = inputs[0]->data<float>();
    float* y = outputs[0]->data<float>();
    float* meanOut = outputs.size() > 1 && outputs[1] ? outputs[1]->data<float>() : nullptr;
    float* invOut = outputs.size() > 2 && outputs[2] ? outputs[2]->data<float>() : nullptr;
    const int64_t inner = inner_;
    const float* scale = scale_.data();
    const float* bias = bias_.data();
    const double eps = params_.epsilon;
    cpuPool(*this).parallelFor(outer_, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* src = x + r * inner;
        float* dst = y + r * inner;
        // Eight partial sums (LaneSums.hpp): as one chain of adds, ViT-S's 197 rows of 384
        // took 0.12 ms a LayerNormalization on a Zen 3 at 2 threads, ONNX Runtime 0.05.
        const double zero[1] = {0.0};
        double sum[1], sq[1];
        laneSums<1, false>(src, inner, zero, sum);
        const double mean[1] = {sum[0] / static_cast<double>(inner)};
        laneSums<1, true>(src, inner, mean, sq);
        const double inv = 1.0 / std::sqrt(sq[0] / static_cast<double>(inner) + eps);
        const float m = static_cast<float>(mean[0]), k = static_cast<float>(inv);
        for (int64_t i = 0; i < inner; ++i) dst[i] = (src[i] - m) * k * scale[i] + bias[i];
        if (meanOut) meanOut[r] = m;
        if (invOut) invOut[r] = k;
      }
    }, 1);
    return Status::ok();
  }

 private:
  void expand(const Tensors& inputs) {
    expandTo(*inputs[1], rowShape_, scale_.data());
    if (inputs.size() > 2 && inputs[2]) expandTo(*inputs[2], rowShape_, bias_.data());
  }

  LayerNormalizationParams params_;
  Shape rowShape_;
  int64_t inner_ = 0, outer_ = 0;
  bool expanded_ = false;
  std::vector<float> scale_, bias_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->dtype() != DataType::kF32) return nullptr;
  LayerNormalizationParams p;
  if (!LayerNormalizationParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuLayerNormalization>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, LayerNormalization, create);

}  // namespace tessera
