// CPU NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (semantics: ops/Loss.hpp), on f32
// and f64 with int32/int64 targets. SoftmaxCrossEntropyLoss computes log_softmax over the
// class axis into its log_prob output (or a buffer made at resize), then the same NLL.
// Sums are kept in double. Small by nature (losses at inference score a batch), so serial.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/Loss.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// [N, C, D] viewed from a shape [N, C, d1..dk].
struct ClassGeometry {
  int64_t N = 0, C = 0, D = 1;
  explicit ClassGeometry(const Shape& s) : N(s[0]), C(s[1]) {
    for (size_t d = 2; d < s.size(); ++d) D *= s[d];
  }
};

template <typename T, typename I>
Status nllLoss(const Node& node, const LossParams& p, const ClassGeometry& g, const T* logp,
               const I* target, const T* weight, T* out) {
  double sum = 0, weightSum = 0;
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t d = 0; d < g.D; ++d) {
      const int64_t t = static_cast<int64_t>(target[n * g.D + d]);
      double loss = 0, w = 0;
      if (!(p.hasIgnoreIndex && t == p.ignoreIndex)) {
        if (t < 0 || t >= g.C)
          return Status::invalid(node.label() + ": target " + std::to_string(t) + " at position " +
                                 std::to_string(n * g.D + d) + " is not a class in [0, " +
                                 std::to_string(g.C) + ")" +
                                 (p.hasIgnoreIndex ? " nor ignore_index " + std::to_string(p.ignoreIndex) : ""));
        w = weight ? static_cast<double>(weight[t]) : 1.0;
        loss = -static_cast<double>(logp[(n * g.C + t) * g.D + d]) * w;
      }
      if (p.reduction == LossParams::Reduction::kNone) out[n * g.D + d] = static_cast<T>(loss);
      sum += loss;
      weightSum += w;
    }
  }
  if (p.reduction == LossParams::Reduction::kSum) out[0] = static_cast<T>(sum);
  if (p.reduction == LossParams::Reduction::kMean) out[0] = static_cast<T>(sum / weightSum);
  return Status::ok();
}

template <typename T>
Status nllLoss(const Node& node, const LossParams& p, const ClassGeometry& g, const T* logp,
               const Tensor& target, const Tensor* weight, T* out) {
  const T* w = weight ? weight->data<T>() : nullptr;
  if (target.dtype() == DataType::kI64) return nllLoss(node, p, g, logp, target.data<int64_t>(), w, out);
  return nllLoss(node, p, g, logp, target.data<int32_t>(), w, out);
}

// y = log_softmax(x) over the class axis of [N, C, D].
template <typename T>
void logSoftmax(const ClassGeometry& g, const T* x, T* y) {
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t d = 0; d < g.D; ++d) {
      const T* xs = x + n * g.C * g.D + d;
      T* ys = y + n * g.C * g.D + d;
      double top = -INFINITY, sum = 0;
      for (int64_t c = 0; c < g.C; ++c) top = std::max(top, static_cast<double>(xs[c * g.D]));
      for (int64_t c = 0; c < g.C; ++c) sum += std::exp(static_cast<double>(xs[c * g.D]) - top);
      const double logSum = top + std::log(sum);
      for (int64_t c = 0; c < g.C; ++c) ys[c * g.D] = static_cast<T>(static_cast<double>(xs[c * g.D]) - logSum);
    }
  }
}

const Tensor* weightInput(const Tensors& inputs) {
  return inputs.size() > 2 && inputs[2] && inputs[2]->elementCount() > 0 ? inputs[2] : nullptr;
}

class CpuLoss final : public Execution {
 public:
  CpuLoss(Backend* b, const Node& node, const LossParams& p, bool softmax)
      : Execution(b), node_(node), params_(p), softmax_(softmax) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    // SoftmaxCrossEntropyLoss without a log_prob output needs somewhere to put it.
    const bool haveLogProb = outputs.size() > 1 && outputs[1];
    scratch_.assign(softmax_ && !haveLogProb ? inputs[0]->elementCount() * dataTypeSize(inputs[0]->dtype()) : 0, 0);
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    if (inputs[0]->dtype() == DataType::kF64) return run<double>(inputs, outputs);
    return run<float>(inputs, outputs);
  }

 private:
  template <typename T>
  Status run(const Tensors& inputs, const Tensors& outputs) {
    const ClassGeometry g(inputs[0]->shape());
    const T* logp = inputs[0]->data<T>();
    if (softmax_) {
      T* lp = outputs.size() > 1 && outputs[1] ? outputs[1]->data<T>() : reinterpret_cast<T*>(scratch_.data());
      logSoftmax(g, logp, lp);
      logp = lp;
    }
    return nllLoss(node_, params_, g, logp, *inputs[1], weightInput(inputs), outputs[0]->data<T>());
  }

  Node node_;
  LossParams params_;
  bool softmax_;
  std::vector<char> scratch_;
};

template <bool Softmax>
std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  LossParams p;
  if (!LossParams::parse(node, &p).isOk() || inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  const DataType dt = inputs[0]->dtype();
  if (dt != DataType::kF32 && dt != DataType::kF64) return nullptr;
  if (inputs[1]->dtype() != DataType::kI64 && inputs[1]->dtype() != DataType::kI32) return nullptr;
  return std::make_unique<CpuLoss>(b, node, p, Softmax);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, NegativeLogLikelihoodLoss, create<false>);
TESSERA_REGISTER_EXECUTION(kCPU, SoftmaxCrossEntropyLoss, create<true>);

}  // namespace tessera
