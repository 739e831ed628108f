// OpenCL Gather (any element type; int32 or int64 indices, computed at run time or constant)
// on plain buffers.
#include "backends/opencl/Movement.hpp"
#include "ops/Gather.hpp"
#include "tessera/Registry.hpp"
#include "kernels/reshape.hpp"

namespace tessera {
namespace {

class OpenClGather final : public OpenClExecution {
 public:
  OpenClGather(Backend* b, int64_t axis) : OpenClExecution(b), axis_(axis) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* data = inputs[0];
    const Tensor* indices = inputs[1];
    const Tensor* y = outputs[0];
    int64_t inner = 1;
    for (int d = static_cast<int>(axis_) + 1; d < data->rank(); ++d) inner *= data->dim(d);
    KernelOptions o;
    o.define("T", elementTypeName(data->dtype())).define("IDX", indices->dtype() == DataType::kI32 ? "int" : "long");
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::reshape::gather_axis, o, &k));
    k->tensor(data).tensor(indices).tensor(y).arg(y->elementCount()).arg(std::max<int64_t>(1, indices->elementCount()));
    k->arg(data->dim(static_cast<int>(axis_))).arg(std::max<int64_t>(1, inner));
    return dispatch(k, {y->elementCount()});
  }

 private:
  int64_t axis_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.size() != 2 || !inputs[0] || !inputs[1]) return nullptr;
  const Tensor* data = inputs[0];
  const DataType it = inputs[1]->dtype();
  if (data->rank() == 0 || elementTypeName(data->dtype()).empty() || (it != DataType::kI32 && it != DataType::kI64))
    return nullptr;
  GatherParams p;
  int64_t axis = 0;
  if (!GatherParams::parse(node, &p).isOk() || !normalizeAxis(p.axis, data->rank(), &axis)) return nullptr;
  if (data->dim(static_cast<int>(axis)) == 0) return nullptr;  // nothing to gather from
  return makeExecution<OpenClGather>(b, node, axis);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Gather, create);

}  // namespace tessera
