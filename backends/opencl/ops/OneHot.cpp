// OpenCL OneHot (semantics: ops/OneHot.hpp) on plain buffers: f32, int32 or int64 indices,
// values of any 1/2/4/8-byte element type read on the device (shaders/opencl/one_hot.cl).
// depth is known when planned (the output's extent; the Session specializes a run-time
// depth) and never bound.
#include "backends/opencl/Movement.hpp"
#include "ops/OneHot.hpp"
#include "tessera/Registry.hpp"
#include "kernels/one_hot.hpp"

namespace tessera {
namespace {

class OpenClOneHot final : public OpenClExecution {
 public:
  OpenClOneHot(Backend* b, const Node& node, const OneHotParams& p) : OpenClExecution(b), node_(node), params_(p) {}
  bool readsConstantOnHost(size_t input) const override { return input == 1; }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* indices = inputs[0];
    int64_t axis = 0;
    TESSERA_RETURN_IF_ERROR(params_.outputAxis(node_, indices->rank(), &axis));
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < indices->rank(); ++d) (d < axis ? outer : inner) *= indices->dim(d);
    const int64_t depth = outputs[0]->dim(static_cast<int>(axis));
    const DataType it = indices->dtype();
    KernelOptions o;
    o.define("T", elementTypeName(outputs[0]->dtype()));
    o.define("IDX", it == DataType::kF32 ? "float" : it == DataType::kI32 ? "int" : "long");
    if (it == DataType::kF32) o.define("INDEX_FLOAT");
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::one_hot::one_hot, o, &k));
    k->tensor(indices).tensor(inputs[2]).tensor(outputs[0]).arg(outer).arg(depth).arg(inner);
    return dispatch(k, {inner, depth, outer});
  }

 private:
  Node node_;
  OneHotParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  OneHotParams p;
  if (!OneHotParams::parse(node, &p).isOk() || inputs.size() != 3 || !inputs[0] || !inputs[2]) return nullptr;
  const DataType it = inputs[0]->dtype();
  if (it != DataType::kF32 && it != DataType::kI32 && it != DataType::kI64) return nullptr;
  if (outputs.empty() || !outputs[0] || outputs[0]->dtype() != inputs[2]->dtype()) return nullptr;
  if (elementTypeName(outputs[0]->dtype()).empty()) return nullptr;
  if (outputs[0]->elementCount() == 0 || outputs[0]->elementCount() >= (int64_t(1) << 31)) return nullptr;
  return makeExecution<OpenClOneHot>(b, node, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, OneHot, create);

}  // namespace tessera
