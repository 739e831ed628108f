// OpenCL ArgMax / ArgMin (f32 input, int64 output, plain buffers): every axis, keepdims,
// select_last_index. Kernel: shaders/opencl/arg_min_max.cl, a line per work-item when short,
// per work-group when long. Other input types run on the CPU.
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/ArgMinMax.hpp"
#include "tessera/Registry.hpp"
#include "kernels/arg_min_max.hpp"

namespace tessera {
namespace {

constexpr size_t kGroupSize = 64;    // the group's items (a power of 2)

class OpenClArgMinMax final : public OpenClExecution {
 public:
  OpenClArgMinMax(Backend* b, const ArgMinMaxParams& p) : OpenClExecution(b), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    int64_t outer, n, inner;
    if (!params_.split(inputs[0]->shape(), &outer, &n, &inner))
      return Status::invalid("ArgMin/ArgMax: axis " + std::to_string(params_.axis) + " out of range");
    const bool group = groupLines(n, outer * inner, kGroupSize);
    KernelOptions o;
    o.define("ARG_OP", params_.max ? "WG_MAX" : "WG_MIN").define("LAST", params_.selectLastIndex ? 1 : 0);
    if (group) o.define("GROUP").define("WG_SIZE", static_cast<long long>(kGroupSize));
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::arg_min_max::arg_min_max, o, &k));
    k->tensor(inputs[0]).tensor(outputs[0]).arg(outer).arg(n).arg(inner);
    return group ? dispatchGroups(k, outer * inner, kGroupSize) : dispatch(k, {inner, outer});
  }

 private:
  ArgMinMaxParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  if (!x || x->dtype() != DataType::kF32 || x->elementCount() >= (int64_t(1) << 31)) return nullptr;
  if (outputs.size() != 1 || !outputs[0] || outputs[0]->dtype() != DataType::kI64) return nullptr;
  ArgMinMaxParams p;
  int64_t outer, n, inner;
  if (!ArgMinMaxParams::parse(node, &p).isOk() || !p.split(x->shape(), &outer, &n, &inner)) return nullptr;
  if (n == 0 || outer * inner == 0) return nullptr;  // nothing to choose from, or nothing to write
  return makeExecution<OpenClArgMinMax>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, ArgMax, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ArgMin, create);

}  // namespace tessera
