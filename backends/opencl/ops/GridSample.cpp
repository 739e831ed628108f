// OpenCL GridSample (f32) on plain NCHW buffers: the grid [N, Ho, Wo, 2] is not an image of
// channels, and each output element reads a data-dependent 1 to 16 pixels of one plane, so
// packing X into NC4HW4 would buy nothing here. Kernel: shaders/opencl/grid_sample.cl.
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/GridSample.hpp"
#include "tessera/Registry.hpp"
#include "kernels/grid_sample.hpp"

namespace tessera {
namespace {

class OpenClGridSample final : public OpenClExecution {
 public:
  OpenClGridSample(Backend* b, const GridSampleParams& p) : OpenClExecution(b), params_(p) {}

  // The default selectLayouts keeps every input and the output in NCHW.
  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Shape& xs = inputs[0]->shape();
    const Shape& ys = outputs[0]->shape();
    const int64_t count = outputs[0]->elementCount();
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::grid_sample::grid_sample, KernelOptions(), &k));
    k->tensor(inputs[0]).tensor(inputs[1]).tensor(outputs[0]).arg(count);
    k->arg(xs[1]).arg(xs[2]).arg(xs[3]).arg(ys[2]).arg(ys[3]);
    k->arg(static_cast<cl_int>(params_.mode)).arg(static_cast<cl_int>(params_.padding)).arg(params_.alignCorners ? 1 : 0);
    return dispatch(k, {count});
  }

 private:
  GridSampleParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return nullptr;
  if (inputs[0]->dtype() != DataType::kF32 || inputs[1]->dtype() != DataType::kF32) return nullptr;
  if (inputs[0]->rank() != 4 || inputs[1]->rank() != 4) return nullptr;
  // Empty outputs are left to the CPU; int indices in the kernel.
  const int64_t limit = int64_t(1) << 31;
  if (outputs[0]->elementCount() == 0 || outputs[0]->elementCount() >= limit || inputs[0]->elementCount() >= limit ||
      inputs[1]->elementCount() >= limit)
    return nullptr;
  GridSampleParams p;
  if (!GridSampleParams::parse(node, &p).isOk()) return nullptr;
  return makeExecution<OpenClGridSample>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, GridSample, create);

}  // namespace tessera
