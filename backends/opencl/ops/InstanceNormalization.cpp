// OpenCL InstanceNormalization (f32, plain buffers).
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/InstanceNormalization.hpp"
#include "tessera/Registry.hpp"
#include "kernels/norm.hpp"

namespace tessera {
namespace {

class OpenClInstanceNorm final : public OpenClExecution {
 public:
  OpenClInstanceNorm(Backend* b, float eps) : OpenClExecution(b), epsilon_(eps) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const int64_t C = x->dim(1), planes = x->dim(0) * C;
    const int64_t plane = planes == 0 ? 0 : x->elementCount() / planes;
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::norm::instance_norm, KernelOptions(), &k));
    k->tensor(x).tensor(inputs[1]).tensor(inputs[2]).tensor(outputs[0]).arg(planes).arg(C).arg(plane).arg(epsilon_);
    return dispatch(k, {planes});
  }

 private:
  float epsilon_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() != 3) return nullptr;
  for (const Tensor* t : inputs)
    if (!t || t->dtype() != DataType::kF32) return nullptr;
  if (inputs[0]->rank() < 3 || inputs[1]->elementCount() != inputs[0]->dim(1) ||
      inputs[2]->elementCount() != inputs[0]->dim(1))
    return nullptr;
  InstanceNormalizationParams p;
  if (!InstanceNormalizationParams::parse(node, &p).isOk()) return nullptr;
  return makeExecution<OpenClInstanceNorm>(b, node, p.epsilon);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, InstanceNormalization, create);

}  // namespace tessera
