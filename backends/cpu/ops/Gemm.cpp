// CPU Gemm: Y is first filled with beta * C (broadcast), then the shared packed GEMM adds
// alpha * A' * B'. A constant B (the usual fully-connected weight) is packed once at resize,
// alpha folded in (gemmPackB's scale).
#include <string>
#include <vector>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/Gemm.hpp"
#include "ops/Gemm.hpp"
#include "ops/MatMul.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuGemm final : public Execution {
 public:
  CpuGemm(Backend* b, const GemmParams& p) : Execution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& a = *inputs[0];
    M_ = outputs[0]->dim(0);
    N_ = outputs[0]->dim(1);
    K_ = params_.transA ? a.dim(0) : a.dim(1);
    const Tensor* b = inputs[1];
    weights_.plan(cpuPackedConstants(*this), {b},
                  "Gemm K" + std::to_string(K_) + " N" + std::to_string(N_) + (params_.transB ? " transB" : "") +
                      gemmScaleKey(params_.alpha),
                  gemmPackedBSize(K_, N_), [this, b](float* dst) {
                    gemmPackB(K_, N_, b->data<float>(), b->dim(1), params_.transB, dst, params_.alpha);
                  });
    aScratch_ = gemmAScratchFloats(args(a), cpuPool(*this).threads());
    return cpuBackend(*this).reserveStepScratch(aScratch_, "Gemm's A (" + std::to_string(M_) + " x " +
                                                               std::to_string(K_) + ")");
  }

  WorkEstimate work(const Tensors& inputs, const Tensors& outputs) const override {
    return matMulWork(inputs, outputs, K_);
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& a = *inputs[0];
    const Tensor* c = inputs.size() > 2 ? inputs[2] : nullptr;
    float* y = outputs[0]->data<float>();
    const float* packedB = weights_.get();
    const bool addC = c && params_.beta != 0.f;
    if (addC) {
      // Broadcast C ([], [N], [1, N], [M, 1], [M, N], ...) into Y, scaled by beta.
      const int64_t rows = c->rank() == 2 ? c->dim(0) : 1;
      const int64_t cols = c->rank() >= 1 ? c->dim(-1) : 1;
      const float* cd = c->data<float>();
      for (int64_t m = 0; m < M_; ++m)
        for (int64_t n = 0; n < N_; ++n)
          y[m * N_ + n] = params_.beta * cd[(rows == 1 ? 0 : m) * cols + (cols == 1 ? 0 : n)];
    }
    GemmArgs g = args(a);
    g.A = a.data<float>();
    g.aScratch = aScratch_ ? cpuBackend(*this).stepScratch() : nullptr;
    g.packedB = packedB;
    g.C = y;
    g.ldc = N_;
    g.accumulate = addC;
    gemmPacked(cpuPool(*this), g);
    return Status::ok();
  }

 private:
  // The product's sizes and A's layout.
  GemmArgs args(const Tensor& a) const {
    GemmArgs g;
    g.M = M_;
    g.N = N_;
    g.K = K_;
    g.lda = a.dim(1);
    g.transA = params_.transA;
    return g;
  }

  GemmParams params_;
  int64_t M_ = 0, N_ = 0, K_ = 0;
  int64_t aScratch_ = 0;  // floats of the step scratch the product packs A into (gemmAScratchFloats)
  PackedWeights weights_;  // B packed: shared by the Session's plans when constant
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->dtype() != DataType::kF32) return nullptr;
  if (!inputs[0] || !inputs[1]) return nullptr;
  GemmParams p;
  if (!GemmParams::parse(node, &p).isOk()) return nullptr;
  return std::make_unique<CpuGemm>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Gemm, create);

}  // namespace tessera
