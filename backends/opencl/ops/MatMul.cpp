// OpenCL MatMul (f32, plain buffers): numpy batching with broadcast batch dimensions; the
// per-batch offsets of A and B are computed at planning time; the optional bias and residual
// Z of ops/MatMul.hpp added at the store (-DHAS_BIAS, -DHAS_Z).
#include <vector>

#include "backends/opencl/Movement.hpp"
#include "core/src/SplitReduction.hpp"
#include "ops/FusedActivation.hpp"
#include "ops/MatMul.hpp"
#include "tessera/Registry.hpp"
#include "kernels/matmul.hpp"

namespace tessera {
namespace {

class OpenClMatMul final : public OpenClExecution {
 public:
  WorkEstimate work(const Tensors& in, const Tensors& out) const override {
    return matMulWork(in, out, in[0]->rank() == 0 ? 1 : in[0]->dim(in[0]->rank() - 1));
  }
  OpenClMatMul(Backend* b, const MatMulShape& s, const FusedActivation& act, bool transB, float alpha)
      : OpenClExecution(b), shape_(s), act_(act), transB_(transB), alpha_(alpha) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const MatMulShape& s = shape_;
    const int64_t batch = elementCount(s.batch);
    std::vector<cl_int> aOff(std::max<int64_t>(batch, 1)), bOff(std::max<int64_t>(batch, 1));
    const int rank = static_cast<int>(s.batch.size());
    for (int64_t i = 0; i < batch; ++i) {
      int64_t rest = i, ai = 0, bi = 0, aStride = 1, bStride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t idx = rest % s.batch[d];
        rest /= s.batch[d];
        const int ad = d - (rank - static_cast<int>(s.aBatch.size()));
        const int bd = d - (rank - static_cast<int>(s.bBatch.size()));
        if (ad >= 0) { if (s.aBatch[ad] != 1) ai += idx * aStride; aStride *= s.aBatch[ad]; }
        if (bd >= 0) { if (s.bBatch[bd] != 1) bi += idx * bStride; bStride *= s.bBatch[bd]; }
      }
      aOff[i] = static_cast<cl_int>(ai * s.M * s.K);
      bOff[i] = static_cast<cl_int>(bi * s.K * s.N);
    }
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(aOff.size() * sizeof(cl_int), aOff.data(), &aOffsets_, "MatMul offsets"));
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(bOff.size() * sizeof(cl_int), bOff.data(), &bOffsets_, "MatMul offsets"));
    ClKernel* k = nullptr;
    // Few outputs and a long K: each output's sum split over work-items (SplitReduction.hpp).
    const int64_t outputCount = s.M * s.N * batch;
    const int lanes = splitReductionLanes(outputCount, s.K, cl()->deviceKind(), "TESSERA_OPENCL_SPLIT");
    const Tensor* bias = inputs.size() > kMatMulBiasInput ? inputs[kMatMulBiasInput] : nullptr;
    const Tensor* z = inputs.size() > kMatMulResidualInput ? inputs[kMatMulResidualInput] : nullptr;
    KernelOptions options;
    if (bias) options.define("HAS_BIAS");
    if (z) options.define("HAS_Z");
    options.define("ACTIVATION", static_cast<long long>(act_.kind)).defineFloat("ACT_A", act_.alpha).defineFloat("ACT_B", act_.beta);
    if (transB_) options.define("TRANS_B");
    if (alpha_ != 1.f) options.defineFloat("ALPHA", alpha_);
    TESSERA_RETURN_IF_ERROR(addKernel(lanes > 1 ? opencl::kernels::matmul::matmul_split : opencl::kernels::matmul::matmul,
                                      options, &k));
    k->tensor(inputs[0]).tensor(inputs[1]).tensor(outputs[0]).mem(aOffsets_.get()).mem(bOffsets_.get());
    k->arg(s.M).arg(s.N).arg(s.K).arg(batch).tensor(bias ? bias : inputs[1]).tensor(z ? z : inputs[1]);
    if (lanes > 1) {
      k->arg(lanes);
      countSplitReductionPlan();
      return dispatchGroups(k, (outputCount * lanes + 63) / 64, 64);
    }
    return dispatch(k, {s.N, s.M, batch});
  }

 private:
  MatMulShape shape_;
  FusedActivation act_;  // ops/MatMul.hpp's fused activation (kNone: none)
  bool transB_;          // B stored [.., N, K] (ops/MatMul.hpp)
  float alpha_;          // the product's scale (ops/MatMul.hpp)
  ClBuffer aOffsets_, bOffsets_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.size() < 2 || inputs.size() > 4 || !inputs[0] || !inputs[1]) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->dtype() != DataType::kF32) return nullptr;
  MatMulShape s;
  if (!resolveMatMul(inputs[0]->shape(), matMulB(node, inputs[1]->shape()), &s).isOk()) return nullptr;
  if (s.output != outputs[0]->shape()) return nullptr;
  FusedActivation act;
  if (!FusedActivation::parse(node, &act).isOk() || act.hasAffine()) return nullptr;
  return makeExecution<OpenClMatMul>(b, node, s, act, matMulTransB(node), matMulAlpha(node));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, MatMul, create);

}  // namespace tessera
