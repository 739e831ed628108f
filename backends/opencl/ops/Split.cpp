// OpenCL Split (any element type) on plain buffers: each output copies its rows.
#include "backends/opencl/Movement.hpp"
#include "ops/Split.hpp"
#include "tessera/Registry.hpp"
#include "kernels/reshape.hpp"

namespace tessera {
namespace {

class OpenClSplit final : public OpenClExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  OpenClSplit(Backend* b, int64_t axis) : OpenClExecution(b), axis_(axis) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const Shape& s = x->shape();
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis_; ++d) outer *= s[d];
    for (size_t d = axis_ + 1; d < s.size(); ++d) inner *= s[d];
    const int64_t srcRow = s[axis_] * inner;
    int64_t offset = 0;
    for (const Tensor* y : outputs) {
      const int64_t row = y->shape()[axis_] * inner;
      if (row > 0 && outer > 0) {
        ClKernel* k = nullptr;
        TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::reshape::copy_rows,
                                          KernelOptions().define("T", elementTypeName(x->dtype())), &k));
        k->tensor(x).tensor(y).arg(row).arg(outer).arg(srcRow).arg(offset).arg(row).arg(int64_t(0));
        TESSERA_RETURN_IF_ERROR(dispatch(k, {row, outer}));
      }
      offset += row;
    }
    return Status::ok();
  }

 private:
  int64_t axis_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs[0];
  if (!x || elementTypeName(x->dtype()).empty()) return nullptr;
  SplitParams p;
  int64_t axis = 0;
  // The part sizes are the outputs' extents (from shape inference).
  if (!SplitParams::parse(node, &p).isOk() || !normalizeAxis(p.axis, x->rank(), &axis)) return nullptr;
  return makeExecution<OpenClSplit>(b, node, axis);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Split, create);

}  // namespace tessera
