// OpenCL Hardmax (f32, plain buffers): the one-axis form (opset 13) and the older 2-D
// coercion, both through SoftmaxParams::split3 as on the CPU. Kernel: shaders/opencl/hardmax.cl,
// a line per work-item when short, per work-group when long.
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Softmax.hpp"
#include "tessera/Registry.hpp"
#include "kernels/hardmax.hpp"

namespace tessera {
namespace {

constexpr size_t kGroupSize = 64;    // the group's items (a power of 2)

class OpenClHardmax final : public OpenClExecution {
 public:
  OpenClHardmax(Backend* b, const Node& node, const SoftmaxParams& p) : OpenClExecution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    int64_t outer, n, inner;
    TESSERA_RETURN_IF_ERROR(params_.split3(node_, inputs[0]->shape(), &outer, &n, &inner));
    if (n == 0 || outer * inner == 0) return Status::ok();  // an empty tensor: nothing to write
    const bool group = groupLines(n, outer * inner, kGroupSize);
    KernelOptions o;
    if (group) o.define("GROUP").define("WG_SIZE", static_cast<long long>(kGroupSize));
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::hardmax::hardmax, o, &k));
    k->tensor(inputs[0]).tensor(outputs[0]).arg(outer).arg(n).arg(inner);
    return group ? dispatchGroups(k, outer * inner, kGroupSize) : dispatch(k, {inner, outer});
  }

 private:
  Node node_;
  SoftmaxParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  if (!x || x->dtype() != DataType::kF32 || x->elementCount() >= (int64_t(1) << 31)) return nullptr;
  SoftmaxParams p;
  int64_t outer, n, inner;
  if (!SoftmaxParams::parse(node, &p).isOk() || !p.split3(node, x->shape(), &outer, &n, &inner).isOk()) return nullptr;
  return makeExecution<OpenClHardmax>(b, node, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Hardmax, create);

}  // namespace tessera
