// OpenCL Pad (f32, plain buffers, rank <= 8): constant, edge and reflect, negative pads
// cropping; pads known at planning, the constant from the attribute or input 2.
#include "backends/opencl/Movement.hpp"
#include "ops/Pad.hpp"
#include "tessera/Registry.hpp"
#include "kernels/pad.hpp"

namespace tessera {
namespace {

class OpenClPad final : public OpenClExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  OpenClPad(Backend* b, PadMode mode, std::vector<int64_t> begins, float value, bool valueFromInput)
      : OpenClExecution(b), mode_(mode), begins_(std::move(begins)), value_(value), valueFromInput_(valueFromInput) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const Tensor* y = outputs[0];
    const char* mode = mode_ == PadMode::kEdge ? "PAD_EDGE" : mode_ == PadMode::kReflect ? "PAD_REFLECT" : "PAD_CONSTANT";
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::pad::pad, KernelOptions().define(mode), &k));
    const std::vector<int64_t> outDims(y->shape().begin(), y->shape().end()), inDims(x->shape().begin(), x->shape().end());
    k->tensor(x).tensor(y).arg(y->elementCount()).arg(static_cast<int64_t>(x->rank())).arg(toInt8(outDims));
    k->arg(toInt8(inDims)).arg(toInt8(begins_)).arg(toInt8(rowMajorStrides(x->shape())));
    k->tensor(valueFromInput_ ? inputs[2] : y).arg(value_).arg(valueFromInput_ ? 1 : 0);
    return dispatch(k, {y->elementCount()});
  }

 private:
  PadMode mode_;
  std::vector<int64_t> begins_;
  float value_;
  bool valueFromInput_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  if (!x || x->dtype() != DataType::kF32 || x->rank() > 8 || x->rank() == 0) return nullptr;
  PadParams p;
  if (!PadParams::parse(node, &p).isOk()) return nullptr;
  const Tensor* pads = p.padsFromInput && inputs.size() > 1 ? inputs[1] : nullptr;
  if (pads && !pads->data()) return nullptr;
  std::vector<int64_t> begins, ends;
  Shape out;
  if (!resolvePads(p, x->shape(), pads, &begins, &ends, &out).isOk() || out != outputs[0]->shape()) return nullptr;
  if (p.mode != PadMode::kConstant)
    for (int d = 0; d < x->rank(); ++d)
      if (x->dim(d) == 0 && out[d] > 0) return nullptr;  // nothing to mirror: left to the CPU
  float value = p.valueAttribute;
  bool fromInput = false;
  if (p.padsFromInput && inputs.size() > 2 && inputs[2] && inputs[2]->elementCount() > 0) {
    const Tensor* v = inputs[2];
    if (v->dtype() != DataType::kF32) return nullptr;
    if (v->data()) value = v->data<float>()[0];
    else fromInput = true;
  }
  if (!p.padsFromInput) value = p.valueAttribute;
  return makeExecution<OpenClPad>(b, node, p.mode, std::move(begins), value, fromInput);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Pad, create);

}  // namespace tessera
