// OpenCL Det (f32, plain buffers): LU with partial pivoting per matrix, step for step as the
// CPU (shaders/opencl/det.cl), in a scratch copy of the input made at resize.
#include "backends/opencl/OpenClExecution.hpp"
#include "tessera/Registry.hpp"
#include "kernels/det.hpp"

namespace tessera {
namespace {

// One work item runs M^3 / 3 serial steps in fp32; larger matrices stay on the CPU, which
// factorizes in double.
constexpr int64_t kMaxOrder = 64;

class OpenClDet final : public OpenClExecution {
 public:
  using OpenClExecution::OpenClExecution;

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const int64_t count = outputs[0]->elementCount(), M = inputs[0]->dim(-1);
    TESSERA_RETURN_IF_ERROR(
        cl()->createBuffer(static_cast<size_t>(inputs[0]->elementCount()) * sizeof(float), nullptr, &scratch_, "Det LU"));
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::det::det, KernelOptions(), &k));
    k->tensor(inputs[0]).mem(scratch_.get()).tensor(outputs[0]).arg(count).arg(M);
    return dispatch(k, {count});
  }

 private:
  ClBuffer scratch_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  if (!x || x->dtype() != DataType::kF32 || outputs.empty() || !outputs[0] || outputs[0]->elementCount() == 0)
    return nullptr;
  if (x->rank() < 2 || x->dim(-1) != x->dim(-2) || x->dim(-1) < 1 || x->dim(-1) > kMaxOrder) return nullptr;
  if (x->elementCount() >= (int64_t(1) << 31)) return nullptr;
  return makeExecution<OpenClDet>(b, node);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Det, create);

}  // namespace tessera
