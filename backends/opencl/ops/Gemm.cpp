// OpenCL Gemm (f32, plain buffers): transposes, alpha/beta, C broadcast to [M, N].
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Gemm.hpp"
#include "ops/MatMul.hpp"
#include "tessera/Registry.hpp"
#include "kernels/matmul.hpp"

namespace tessera {
namespace {

class OpenClGemm final : public OpenClExecution {
 public:
  WorkEstimate work(const Tensors& in, const Tensors& out) const override {
    return matMulWork(in, out, params_.transA ? in[0]->dim(0) : in[0]->dim(1));
  }
  OpenClGemm(Backend* b, const GemmParams& p) : OpenClExecution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* a = inputs[0];
    const Tensor* bm = inputs[1];
    const Tensor* c = inputs.size() > 2 ? inputs[2] : nullptr;
    const int64_t M = params_.transA ? a->dim(1) : a->dim(0);
    const int64_t K = params_.transA ? a->dim(0) : a->dim(1);
    const int64_t N = params_.transB ? bm->dim(0) : bm->dim(1);
    int64_t cm = 0, cn = 0;
    if (c) {  // unidirectional broadcast of C (rank 0..2) to [M, N]
      const Shape& s = c->shape();
      const int64_t cRows = s.size() == 2 ? s[0] : 1, cCols = s.empty() ? 1 : s.back();
      cn = cCols == 1 ? 0 : 1;
      cm = cRows == 1 ? 0 : cCols;
    }
    KernelOptions o;
    if (params_.transA) o.define("TRANS_A");
    if (params_.transB) o.define("TRANS_B");
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::matmul::gemm, o, &k));
    k->tensor(a).tensor(bm).tensor(c ? c : a).tensor(outputs[0]).arg(M).arg(N).arg(K);
    k->arg(params_.alpha).arg(params_.beta).arg(cm).arg(cn).arg(c ? 1 : 0);
    return dispatch(k, {N, M});
  }

 private:
  GemmParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->dtype() != DataType::kF32) return nullptr;
  if (inputs[0]->rank() != 2 || inputs[1]->rank() != 2) return nullptr;
  if (inputs.size() > 2 && inputs[2] && inputs[2]->rank() > 2) return nullptr;
  GemmParams p;
  if (!GemmParams::parse(node, &p).isOk()) return nullptr;
  return makeExecution<OpenClGemm>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Gemm, create);

}  // namespace tessera
