// OpenCL LRN (f32, plain NCHW buffers, rank >= 3).
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/LRN.hpp"
#include "tessera/Registry.hpp"
#include "kernels/norm.hpp"

namespace tessera {
namespace {

class OpenClLrn final : public OpenClExecution {
 public:
  OpenClLrn(Backend* b, const LRNParams& p) : OpenClExecution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const int64_t N = x->dim(0), C = x->dim(1);
    const int64_t plane = N * C == 0 ? 0 : x->elementCount() / (N * C);
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::norm::lrn, KernelOptions(), &k));
    k->tensor(x).tensor(outputs[0]).arg(C).arg(plane).arg(params_.size).arg(params_.alpha).arg(params_.beta);
    k->arg(params_.bias).arg(N);
    return dispatch(k, {plane, C, N});
  }

 private:
  LRNParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  const Tensor* x = inputs[0];
  if (!x || x->dtype() != DataType::kF32 || x->rank() < 3) return nullptr;
  LRNParams p;
  if (!LRNParams::parse(node, &p).isOk()) return nullptr;
  return makeExecution<OpenClLrn>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, LRN, create);

}  // namespace tessera
