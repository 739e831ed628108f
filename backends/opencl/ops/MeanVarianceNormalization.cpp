// OpenCL MeanVarianceNormalization (f32, plain buffers) over any axes: one work-group per
// group of the kept dims, reducing its members in local memory. Kernel: shaders/opencl/mvn.cl.
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/MeanVarianceNormalization.hpp"
#include "tessera/Registry.hpp"
#include "kernels/mvn.hpp"

namespace tessera {
namespace {

constexpr int kMaxRank = 8;          // of the kernel's dims argument
constexpr size_t kGroupSize = 64;    // items per work-group (a power of 2)

class OpenClMeanVarianceNormalization final : public OpenClExecution {
 public:
  OpenClMeanVarianceNormalization(Backend* b, const Node& node, const MeanVarianceNormalizationParams& p)
      : OpenClExecution(b), node_(node), params_(p) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    std::vector<int64_t> dims;
    std::vector<bool> reduced;
    TESSERA_RETURN_IF_ERROR(params_.mergedDims(node_, inputs[0]->shape(), &dims, &reduced));
    if (dims.size() > static_cast<size_t>(kMaxRank))
      return Status::unsupported(node_.label() + ": more than 8 runs of reduced and kept dims");
    if (inputs[0]->elementCount() == 0) return Status::ok();
    int64_t groups = 1, members = 1;
    cl_int8 d{};
    cl_int mask = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      (reduced[i] ? members : groups) *= dims[i];
      if (reduced[i]) mask |= 1 << i;
      d.s[i] = static_cast<cl_int>(dims[i]);
    }
    KernelOptions o;
    o.define("WG_SIZE", static_cast<long long>(kGroupSize));
    o.defineFloat("EPSILON", static_cast<float>(MeanVarianceNormalizationParams::kEpsilon));
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::mvn::mvn, o, &k));
    k->tensor(inputs[0]).tensor(outputs[0]).arg(members).arg(static_cast<cl_int>(dims.size())).arg(d).arg(mask);
    return dispatchGroups(k, groups, kGroupSize);
  }

 private:
  Node node_;
  MeanVarianceNormalizationParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  if (!x || x->dtype() != DataType::kF32 || x->elementCount() >= (int64_t(1) << 31)) return nullptr;
  MeanVarianceNormalizationParams p;
  std::vector<int64_t> dims;
  std::vector<bool> reduced;
  if (!MeanVarianceNormalizationParams::parse(node, &p).isOk() || !p.mergedDims(node, x->shape(), &dims, &reduced).isOk() ||
      dims.size() > static_cast<size_t>(kMaxRank))
    return nullptr;
  if (static_cast<OpenClBackend*>(b)->device().maxWorkGroupSize < kGroupSize) return nullptr;
  return makeExecution<OpenClMeanVarianceNormalization>(b, node, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, MeanVarianceNormalization, create);

}  // namespace tessera
