// CPU RNN, GRU and LSTM on f32 (semantics: ops/Recurrent.hpp).
//
// W of every direction is packed as one [input, D*G*H] matrix, so one GEMM projects all
// steps of X (seq*batch rows) at once; R is packed per direction, and each step multiplies
// the batch's hidden state by it (one small GEMM), then the gate math runs on whole gate
// rows with the vector activations. Constant W and R are packed once, at resize, and shared
// by the Session's plans. Bidirectional runs its two directions on two threads.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/CacheAligned.hpp"
#include "backends/cpu/Gemm.hpp"
#include "backends/cpu/VectorMath.hpp"
#include "ops/Recurrent.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

constexpr int64_t kSplitStepWork = 1 << 15;  // multiply-adds of a step product worth two threads

// x = a(x), in place.
void activate(const RecurrentActivation& a, float* x, int64_t n) {
  const float alpha = a.alpha, beta = a.beta;
  switch (a.kind) {
    case RecurrentActivation::kTanh: vectorTanh(x, x, n); return;
    case RecurrentActivation::kSigmoid: vectorSigmoid(x, x, n); return;
    case RecurrentActivation::kElu: vectorElu(x, x, n, alpha); return;
    case RecurrentActivation::kSoftplus: vectorSoftplus(x, x, n); return;
    case RecurrentActivation::kScaledTanh:
      for (int64_t i = 0; i < n; ++i) x[i] *= beta;
      vectorTanh(x, x, n);
      for (int64_t i = 0; i < n; ++i) x[i] *= alpha;
      return;
    case RecurrentActivation::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.f ? x[i] : 0.f;
      return;
    case RecurrentActivation::kAffine:
      for (int64_t i = 0; i < n; ++i) x[i] = alpha * x[i] + beta;
      return;
    case RecurrentActivation::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0.f ? x[i] : alpha * x[i];
      return;
    case RecurrentActivation::kThresholdedRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > alpha ? x[i] : 0.f;
      return;
    case RecurrentActivation::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = std::fmin(1.f, std::fmax(0.f, alpha * x[i] + beta));
      return;
    case RecurrentActivation::kSoftsign:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (1.f + std::fabs(x[i]));
      return;
  }
}

class CpuRecurrent final : public Execution {
 public:
  CpuRecurrent(Backend* b, const Node& node, const RecurrentParams& p)
      : Execution(b), params_(p), label_(node.label()) {
    for (size_t i = 0; i < 3; ++i) wantOutput_[i] = i < node.outputs.size() && !node.outputs[i].empty();
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    (void)outputs;
    const Tensor& x = *inputs[kRnnX];
    const bool batchMajor = params_.layout == 1;
    seq_ = x.dim(batchMajor ? 1 : 0);
    batch_ = x.dim(batchMajor ? 0 : 1);
    input_ = x.dim(2);
    D_ = params_.numDirections();
    H_ = inputs[kRnnR]->dim(2);
    GH_ = params_.gates() * H_;
    // GRU without linear_before_reset multiplies r (.) H by R's h block, not H: pack it apart.
    splitH_ = params_.kind == RecurrentKind::kGru && !params_.linearBeforeReset;
    rCols_ = splitH_ ? 2 * H_ : GH_;
    rBlock_ = gemmPackedBSize(H_, rCols_) + (splitH_ ? gemmPackedBSize(H_, H_) : 0);

    const Tensor* w = inputs[kRnnW];
    const Tensor* r = inputs[kRnnR];
    const std::string sizes = " input" + std::to_string(input_) + " H" + std::to_string(H_) + " D" +
                              std::to_string(D_) + " G" + std::to_string(params_.gates());
    // W [D*G*H, input] is B transposed: one packing serves every direction.
    const int64_t K = input_, N = D_ * GH_;
    wPacked_.plan(cpuPackedConstants(*this), {w}, "Recurrent W" + sizes, gemmPackedBSize(K, N),
                  [w, K, N](float* dst) { gemmPackB(K, N, w->data<float>(), K, true, dst); });
    const int64_t H = H_, GH = GH_, D = D_, rCols = rCols_, rBlock = rBlock_;
    const bool splitH = splitH_;
    rPacked_.plan(cpuPackedConstants(*this), {r}, "Recurrent R" + sizes + (splitH ? " split" : ""),
                  static_cast<size_t>(D * rBlock), [=](float* dst) {
                    for (int64_t d = 0; d < D; ++d) {
                      const float* rd = r->data<float>() + d * GH * H;
                      gemmPackB(H, rCols, rd, H, true, dst + d * rBlock);
                      if (splitH)
                        gemmPackB(H, H, rd + 2 * H * H, H, true, dst + d * rBlock + gemmPackedBSize(H, rCols));
                    }
                  });

    // Scratch: the projected inputs, then per direction its state and step buffers.
    projected_.assign(static_cast<size_t>(seq_ * batch_ * D_ * GH_), 0.f);
    dirFloats_ = batch_ * (2 * H_ + rCols_ + 2 * H_) + GH_ + H_;
    scratch_.assign(static_cast<size_t>(D_ * dirFloats_), 0.f);
    lengths_.assign(static_cast<size_t>(batch_), 0);
    return Status::ok();
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    WorkEstimate e = Execution::work(inputs, outputs);
    e.flops = 2.0 * double(seq_ * batch_ * D_ * GH_) * double(input_ + H_);
    return e;
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    TESSERA_RETURN_IF_ERROR(readLengths(inputs));
    readBias(inputs);
    const float* wp = wPacked_.get();
    const float* rp = rPacked_.get();

    GemmArgs g;
    g.M = seq_ * batch_;
    g.N = D_ * GH_;
    g.K = input_;
    g.A = inputs[kRnnX]->data<float>();
    g.lda = input_;
    g.packedB = wp;
    g.C = projected_.data();
    g.ldc = D_ * GH_;
    gemmPacked(cpuPool(*this), g);

    if (D_ == 1) {
      runDirection(0, rp, inputs, outputs);
    } else {
      // Only `this` captured: the std::function holds it without allocating.
      run_ = {rp, &inputs, &outputs};
      cpuPool(*this).parallelFor(D_, [this](int64_t begin, int64_t end) {
        for (int64_t d = begin; d < end; ++d)
          runDirection(static_cast<int>(d), run_.packedR + d * rBlock_, *run_.inputs, *run_.outputs);
      });
    }
    return Status::ok();
  }

 private:
  static const Tensor* optional(const Tensors& inputs, int i) {
    return static_cast<size_t>(i) < inputs.size() && inputs[i] && inputs[i]->elementCount() > 0 ? inputs[i] : nullptr;
  }

  Status readLengths(const Tensors& inputs) {
    const Tensor* lens = optional(inputs, kRnnSequenceLens);
    maxLength_ = 0;
    for (int64_t b = 0; b < batch_; ++b) {
      int64_t n = seq_;
      if (lens) n = lens->dtype() == DataType::kI64 ? lens->data<int64_t>()[b] : lens->data<int32_t>()[b];
      if (n < 0 || n > seq_)
        return Status::invalid(label_ + ": sequence_lens[" + std::to_string(b) + "] = " + std::to_string(n) +
                               " is outside [0, " + std::to_string(seq_) + "] (the sequence length)");
      lengths_[b] = n;
      maxLength_ = std::max(maxLength_, n);
    }
    return Status::ok();
  }

  // Per direction: GH biases added to the gate pre-activations (W's + R's), then H more for
  // GRU with linear_before_reset, whose h block takes R's bias inside r (.) (...).
  void readBias(const Tensors& inputs) {
    const Tensor* b = optional(inputs, kRnnB);
    const bool rbhApart = params_.kind == RecurrentKind::kGru && params_.linearBeforeReset;
    for (int64_t d = 0; d < D_; ++d) {
      float* bias = biasOf(d);
      if (!b) {
        std::fill(bias, bias + GH_ + H_, 0.f);
        continue;
      }
      const float* wb = b->data<float>() + d * 2 * GH_;
      const float* rb = wb + GH_;
      for (int64_t j = 0; j < GH_; ++j) bias[j] = wb[j] + (rbhApart && j >= 2 * H_ ? 0.f : rb[j]);
      for (int64_t j = 0; j < H_; ++j) bias[GH_ + j] = rbhApart ? rb[2 * H_ + j] : 0.f;
    }
  }

  float* dirScratch(int64_t d) { return scratch_.data() + d * dirFloats_; }
  float* hiddenOf(int64_t d) { return dirScratch(d); }                   // [batch, H]
  float* cellOf(int64_t d) { return dirScratch(d) + batch_ * H_; }       // [batch, H]
  float* gatesOf(int64_t d) { return dirScratch(d) + 2 * batch_ * H_; }  // [batch, rCols]
  float* resetHiddenOf(int64_t d) { return gatesOf(d) + batch_ * rCols_; }     // GRU: r (.) H
  float* hiddenProductOf(int64_t d) { return resetHiddenOf(d) + batch_ * H_; }  // GRU: (r (.) H) Rh^T
  float* biasOf(int64_t d) { return hiddenProductOf(d) + batch_ * H_; }        // GH + H

  int64_t projectedRow(int64_t t, int64_t b) const { return params_.layout == 1 ? b * seq_ + t : t * batch_ + b; }
  int64_t yOffset(int64_t t, int64_t d, int64_t b) const {
    return (params_.layout == 1 ? (b * seq_ + t) * D_ + d : (t * D_ + d) * batch_ + b) * H_;
  }
  int64_t stateOffset(int64_t d, int64_t b) const { return (params_.layout == 1 ? b * D_ + d : d * batch_ + b) * H_; }

  void clip(float* x, int64_t n) const {
    if (!params_.hasClip) return;
    for (int64_t i = 0; i < n; ++i) x[i] = std::fmin(params_.clip, std::fmax(-params_.clip, x[i]));
  }

  void loadState(const Tensor* initial, int64_t d, float* state) const {
    for (int64_t b = 0; b < batch_; ++b) {
      float* dst = state + b * H_;
      if (initial) std::memcpy(dst, initial->data<float>() + stateOffset(d, b), sizeof(float) * H_);
      else std::fill(dst, dst + H_, 0.f);
    }
  }

  // state [batch, rows] x packed [rows, cols] -> out [batch, cols].
  void stepProduct(const float* state, const float* packed, int64_t cols, float* out) {
    GemmArgs g;
    g.M = batch_;
    g.N = cols;
    g.K = H_;
    g.A = state;
    g.lda = H_;
    g.packedB = packed;
    g.C = out;
    g.ldc = cols;
    // gemmPacked keeps a product this small on one thread, but a step's product is a pass
    // over all of R (256 KiB at H = 128), bound by the cache's bandwidth: split by columns,
    // each thread streams its half of R from its own core's L2, and the threads are still
    // spinning from the step before.
    ThreadPool& pool = cpuPool(*this);
    const int64_t panels = (cols + gemmPanelWidth() - 1) / gemmPanelWidth();
    const int64_t tasks = std::min<int64_t>(pool.threads(), panels);
    if (tasks <= 1 || batch_ * cols * H_ < kSplitStepWork) return gemmPacked(pool, g);
    struct Split {
      const GemmArgs* g;
      int64_t perTask;
    } split{&g, (panels + tasks - 1) / tasks * gemmPanelWidth()};
    // One reference captured: the std::function holds it without allocating.
    pool.parallelFor(tasks, [&split](int64_t begin, int64_t end) {
      const GemmArgs& a = *split.g;
      for (int64_t t = begin; t < end; ++t)
        gemmPackedTile(a, 0, a.M, t * split.perTask, std::min(a.N, (t + 1) * split.perTask));
    }, 1);
  }

  void runDirection(int d, const float* packedR, const Tensors& inputs, const Tensors& outputs) {
    float* h = hiddenOf(d);
    float* c = cellOf(d);
    float* gates = gatesOf(d);
    const float* bias = biasOf(d);
    const bool lstm = params_.kind == RecurrentKind::kLstm;
    loadState(optional(inputs, kRnnInitialH), d, h);
    if (lstm) loadState(optional(inputs, kRnnInitialC), d, c);
    const Tensor* peep = lstm ? optional(inputs, kRnnP) : nullptr;
    const float* P = peep ? peep->data<float>() + d * 3 * H_ : nullptr;
    float* Y = wantOutput_[0] ? outputs[0]->data<float>() : nullptr;
    const bool reversed = params_.reversed(d);

    for (int64_t s = 0; s < seq_; ++s) {
      if (s < maxLength_) {
        stepProduct(h, packedR, rCols_, gates);
        // GRU without linear_before_reset: z and r first, then (r (.) H) Rh^T for the batch.
        if (splitH_) {
          for (int64_t b = 0; b < batch_; ++b)
            if (s < lengths_[b]) gruResetGates(d, b, timeOf(s, b, reversed), bias);
          stepProduct(resetHiddenOf(d), packedR + gemmPackedBSize(H_, rCols_), H_, hiddenProductOf(d));
        }
      }
      for (int64_t b = 0; b < batch_; ++b) {
        if (s >= lengths_[b]) {  // past this entry's end: Y is 0 at step s
          if (Y) std::fill(Y + yOffset(s, d, b), Y + yOffset(s, d, b) + H_, 0.f);
          continue;
        }
        const int64_t t = timeOf(s, b, reversed);
        const float* xw = projected_.data() + projectedRow(t, b) * D_ * GH_ + d * GH_;
        float* gate = gates + b * rCols_;
        float* hb = h + b * H_;
        switch (params_.kind) {
          case RecurrentKind::kRnn: rnnCell(d, xw, gate, bias, hb); break;
          case RecurrentKind::kGru: gruCell(d, b, xw, gate, bias, hb); break;
          case RecurrentKind::kLstm: lstmCell(d, xw, gate, bias, P, hb, c + b * H_); break;
        }
        if (Y) std::memcpy(Y + yOffset(t, d, b), hb, sizeof(float) * H_);
      }
    }
    // Y_h / Y_c: each entry's last state, 0 for an empty sequence.
    for (int k = 1; k <= (lstm ? 2 : 1); ++k) {
      if (!wantOutput_[k] || outputs.size() <= static_cast<size_t>(k)) continue;
      const float* state = k == 1 ? h : c;
      float* out = outputs[k]->data<float>();
      for (int64_t b = 0; b < batch_; ++b) {
        float* dst = out + stateOffset(d, b);
        if (lengths_[b] == 0) std::fill(dst, dst + H_, 0.f);
        else std::memcpy(dst, state + b * H_, sizeof(float) * H_);
      }
    }
  }

  int64_t timeOf(int64_t s, int64_t b, bool reversed) const { return reversed ? lengths_[b] - 1 - s : s; }

  // H = f(x W^T + H R^T + Wb + Rb).
  void rnnCell(int d, const float* xw, float* gate, const float* bias, float* h) {
    for (int64_t j = 0; j < H_; ++j) gate[j] += xw[j] + bias[j];
    clip(gate, H_);
    activate(params_.activation(d, 0), gate, H_);
    std::memcpy(h, gate, sizeof(float) * H_);
  }

  // z, r = f(x W^T + H R^T + biases); stores r (.) H for the h block's product.
  void gruResetGates(int d, int64_t b, int64_t t, const float* bias) {
    const float* xw = projected_.data() + projectedRow(t, b) * D_ * GH_ + d * GH_;
    float* gate = gatesOf(d) + b * rCols_;
    for (int64_t j = 0; j < 2 * H_; ++j) gate[j] += xw[j] + bias[j];
    clip(gate, 2 * H_);
    activate(params_.activation(d, 0), gate, 2 * H_);
    const float* r = gate + H_;
    const float* h = hiddenOf(d) + b * H_;
    float* rh = resetHiddenOf(d) + b * H_;
    for (int64_t j = 0; j < H_; ++j) rh[j] = r[j] * h[j];
  }

  void gruCell(int d, int64_t b, const float* xw, float* gate, const float* bias, float* h) {
    float* z = gate;
    const float* r = gate + H_;
    float* hc;  // the candidate h
    if (splitH_) {
      // z and r are done; h~ = g(x Wh^T + (r (.) H) Rh^T + Wbh + Rbh).
      hc = hiddenProductOf(d) + b * H_;
      for (int64_t j = 0; j < H_; ++j) hc[j] += xw[2 * H_ + j] + bias[2 * H_ + j];
    } else {
      // h~ = g(x Wh^T + r (.) (H Rh^T + Rbh) + Wbh).
      for (int64_t j = 0; j < 2 * H_; ++j) gate[j] += xw[j] + bias[j];
      clip(gate, 2 * H_);
      activate(params_.activation(d, 0), gate, 2 * H_);
      hc = gate + 2 * H_;
      const float* rbh = bias + GH_;
      for (int64_t j = 0; j < H_; ++j) hc[j] = xw[2 * H_ + j] + r[j] * (hc[j] + rbh[j]) + bias[2 * H_ + j];
    }
    clip(hc, H_);
    activate(params_.activation(d, 1), hc, H_);
    for (int64_t j = 0; j < H_; ++j) h[j] = (1.f - z[j]) * hc[j] + z[j] * h[j];
  }

  // Gates i o f c; peepholes P = Pi Po Pf.
  void lstmCell(int d, const float* xw, float* gate, const float* bias, const float* P, float* h, float* c) {
    for (int64_t j = 0; j < GH_; ++j) gate[j] += xw[j] + bias[j];
    float* i = gate;
    float* o = gate + H_;
    float* f = gate + 2 * H_;
    float* cc = gate + 3 * H_;
    if (P)
      for (int64_t j = 0; j < H_; ++j) {
        i[j] += P[j] * c[j];
        f[j] += P[2 * H_ + j] * c[j];
      }
    const RecurrentActivation& fa = params_.activation(d, 0);
    clip(i, H_);
    activate(fa, i, H_);
    if (params_.inputForget) {
      for (int64_t j = 0; j < H_; ++j) f[j] = 1.f - i[j];
    } else {
      clip(f, H_);
      activate(fa, f, H_);
    }
    clip(cc, H_);
    activate(params_.activation(d, 1), cc, H_);
    for (int64_t j = 0; j < H_; ++j) c[j] = f[j] * c[j] + i[j] * cc[j];
    if (P)
      for (int64_t j = 0; j < H_; ++j) o[j] += P[H_ + j] * c[j];
    clip(o, H_);
    activate(fa, o, H_);
    std::memcpy(cc, c, sizeof(float) * H_);
    activate(params_.activation(d, 2), cc, H_);
    for (int64_t j = 0; j < H_; ++j) h[j] = o[j] * cc[j];
  }

  RecurrentParams params_;
  std::string label_;
  bool wantOutput_[3] = {false, false, false};
  int64_t seq_ = 0, batch_ = 0, input_ = 0, D_ = 1, H_ = 0, GH_ = 0;
  bool splitH_ = false;
  int64_t rCols_ = 0, rBlock_ = 0, dirFloats_ = 0, maxLength_ = 0;
  PackedWeights wPacked_, rPacked_;
  AlignedFloats projected_;  // [seq*batch rows in X's order, D*G*H]
  AlignedFloats scratch_;    // per direction: see hiddenOf .. biasOf
  std::vector<int64_t> lengths_;
  struct {
    const float* packedR;
    const Tensors* inputs;
    const Tensors* outputs;
  } run_ = {nullptr, nullptr, nullptr};  // this run's operands, for the directions' threads
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  RecurrentParams p;
  if (!RecurrentParams::parse(node, &p).isOk() || inputs.size() < 3) return nullptr;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] && i != kRnnSequenceLens && inputs[i]->dtype() != DataType::kF32) return nullptr;
  if (!inputs[kRnnX] || !inputs[kRnnW] || !inputs[kRnnR]) return nullptr;
  return std::make_unique<CpuRecurrent>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, RNN, create);
TESSERA_REGISTER_EXECUTION(kCPU, GRU, create);
TESSERA_REGISTER_EXECUTION(kCPU, LSTM, create);

}  // namespace tessera
