// OpenCL Softmax / LogSoftmax (f32, plain buffers), every opset's axis rule. Kernel:
// shaders/opencl/softmax.cl, a line per work-item when short, per work-group when long.
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Softmax.hpp"
#include "tessera/Registry.hpp"
#include "kernels/softmax.hpp"

namespace tessera {
namespace {

constexpr size_t kGroupSize = 64;    // the group's items (a power of 2)

class OpenClSoftmax final : public OpenClExecution {
 public:
  OpenClSoftmax(Backend* b, bool log, int64_t outer, int64_t n, int64_t inner)
      : OpenClExecution(b), log_(log), outer_(outer), n_(n), inner_(inner) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const bool group = groupLines(n_, outer_ * inner_, kGroupSize);
    KernelOptions o;
    if (log_) o.define("LOG_SOFTMAX");
    if (group) o.define("GROUP").define("WG_SIZE", static_cast<long long>(kGroupSize));
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::softmax::softmax, o, &k));
    k->tensor(inputs[0]).tensor(outputs[0]).arg(outer_).arg(n_).arg(inner_);
    return group ? dispatchGroups(k, outer_ * inner_, kGroupSize) : dispatch(k, {inner_, outer_});
  }

 private:
  bool log_;
  int64_t outer_, n_, inner_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  const Tensor* x = inputs[0];
  if (!x || x->dtype() != DataType::kF32) return nullptr;
  SoftmaxParams p;
  int64_t outer = 1, n = 1, inner = 1;
  if (!SoftmaxParams::parse(node, &p).isOk() || !p.split3(node, x->shape(), &outer, &n, &inner).isOk()) return nullptr;
  return makeExecution<OpenClSoftmax>(b, node, p.log, outer, n, inner);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Softmax, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, LogSoftmax, create);

}  // namespace tessera
