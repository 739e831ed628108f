// OpenCL SqueezeExcite (ops/SqueezeExcite.hpp): one kernel for a squeeze-and-excite block's
// two 1x1 convs and its Mul, on NC4HW4. Constant weights only, packed on the host into one
// fp32 buffer. Kernel: shaders/opencl/squeeze_excite.cl.
#include <algorithm>
#include <vector>

#include "backends/opencl/OpenClExecution.hpp"
#include "ops/SqueezeExcite.hpp"
#include "tessera/Registry.hpp"
#include "kernels/squeeze_excite.hpp"

namespace tessera {
namespace {

using P = SqueezeExciteParams;
constexpr size_t kGroupSize = 64;      // items of a work-group (a power of 2)
constexpr int64_t kTilePixels = 1024;  // pixels of a channel block a work-group scales

class OpenClSqueezeExcite final : public OpenClExecution {
 public:
  OpenClSqueezeExcite(Backend* b, const SqueezeExciteParams& p, std::vector<float> table)
      : OpenClExecution(b), params_(p), table_(std::move(table)) {}

  bool readsConstantOnHost(size_t input) const override { return input >= P::kW1; }

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), Layout::kNCHW);
    (*in)[P::kX] = (*in)[P::kPooled] = Layout::kNC4HW4;
    (*out)[0] = Layout::kNC4HW4;
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[P::kX];
    const Tensor* pooled = inputs[P::kPooled];
    const Tensor* y = outputs[0];
    if (y->elementCount() == 0) return Status::ok();
    const Shape& s = x->shape();
    const int64_t C = s[1], C1 = inputs[P::kW1]->dim(0), C4 = (C + 3) / 4;
    const int64_t tiles = std::max<int64_t>(1, (s[2] * s[3] + kTilePixels - 1) / kTilePixels);
    const int64_t blocks = P::blocksPerGroup(C4, cl()->deviceKind() == DeviceKind::kCPU);
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(table_.size() * sizeof(float), table_.data(), &tableBuffer_, "SqueezeExcite weights"));
    KernelOptions o;
    o.storage("x", x).storage("pooled", pooled).storage("y", y);
    o.define("WG_SIZE", static_cast<long long>(kGroupSize)).define("MAX_CHANNELS", static_cast<long long>(P::kMaxChannels));
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::squeeze_excite::squeeze_excite, o, &k));
    k->tensor(x).tensor(pooled).mem(tableBuffer_.get()).tensor(y).arg(C).arg(s[2]).arg(s[3]).arg(C1).arg(tiles).arg(blocks);
    k->arg(static_cast<cl_int>(params_.hidden.kind)).arg(params_.hidden.alpha).arg(params_.hidden.beta);
    k->arg(static_cast<cl_int>(params_.gate.kind)).arg(params_.gate.alpha).arg(params_.gate.beta);
    k->arg(params_.gate.scale).arg(params_.gate.shift);
    return dispatchGroups(k, s[0] * ((C4 + blocks - 1) / blocks) * tiles, kGroupSize);
  }

 private:
  SqueezeExciteParams params_;
  std::vector<float> table_;  // the kernel's `w`: W1 transposed, B1, W2, B2
  ClBuffer tableBuffer_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (outputs.size() != 1 || !P::gpuKernelTakes(inputs)) return nullptr;
  if (static_cast<OpenClBackend*>(b)->device().maxWorkGroupSize < kGroupSize) return nullptr;
  SqueezeExciteParams params;
  if (!SqueezeExciteParams::parse(node, &params).isOk()) return nullptr;
  return makeExecution<OpenClSqueezeExcite>(
      b, node, params, P::gpuTable(inputs[P::kW1], P::input(inputs, P::kB1), inputs[P::kW2], P::input(inputs, P::kB2)));
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, SqueezeExcite, create);

}  // namespace tessera
