// OpenCL LayerNormalization (f32, plain buffers): Scale and B with the row's elements or a
// single value; the optional Mean and InvStdDev outputs are written when present.
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/LayerNormalization.hpp"
#include "tessera/Registry.hpp"
#include "kernels/norm.hpp"

namespace tessera {
namespace {

class OpenClLayerNorm final : public OpenClExecution {
 public:
  OpenClLayerNorm(Backend* b, const LayerNormalizationParams& p, int64_t axis) : OpenClExecution(b), params_(p), axis_(axis) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    int64_t inner = 1;
    for (int d = static_cast<int>(axis_); d < x->rank(); ++d) inner *= x->dim(d);
    const int64_t outer = inner == 0 ? 0 : x->elementCount() / inner;
    const Tensor* scale = inputs[1];
    const Tensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
    const Tensor* mean = outputs.size() > 1 ? outputs[1] : nullptr;
    const Tensor* inv = outputs.size() > 2 ? outputs[2] : nullptr;
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::norm::layer_norm, KernelOptions(), &k));
    k->tensor(x).tensor(scale).tensor(bias ? bias : scale).tensor(outputs[0]);
    k->tensor(mean ? mean : outputs[0]).tensor(inv ? inv : outputs[0]).arg(outer).arg(inner);
    k->arg(scale->elementCount() == 1 ? 0 : 1).arg(bias && bias->elementCount() == 1 ? 0 : 1).arg(bias ? 1 : 0);
    k->arg((mean ? 1 : 0) | (inv ? 2 : 0)).arg(params_.epsilon);
    return dispatch(k, {outer});
  }

 private:
  LayerNormalizationParams params_;
  int64_t axis_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  for (const Tensor* t : inputs)
    if (t && t->dtype() != DataType::kF32) return nullptr;
  LayerNormalizationParams p;
  int64_t axis = 0;
  if (!LayerNormalizationParams::parse(node, &p).isOk() || !normalizeAxis(p.axis, inputs[0]->rank(), &axis))
    return nullptr;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis); d < inputs[0]->rank(); ++d) inner *= inputs[0]->dim(d);
  for (size_t i = 1; i < inputs.size() && i < 3; ++i)  // full rows or a single value only
    if (inputs[i] && inputs[i]->elementCount() != inner && inputs[i]->elementCount() != 1) return nullptr;
  return makeExecution<OpenClLayerNorm>(b, node, p, axis);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, LayerNormalization, create);

}  // namespace tessera
