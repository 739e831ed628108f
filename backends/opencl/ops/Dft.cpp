// OpenCL DFT (f32, plain buffers): opset 17 and 20, real or complex input, dft_length,
// inverse and onesided as on the CPU (ops/Dft.hpp). A direct O(L^2) sum per signal, parallel
// over every output bin (shaders/opencl/dft.cl), with the L twiddles uploaded at resize.
// dft_length and opset 20's axis must be known when planned (the Session specializes
// run-time ones); they are read on the host, never bound.
#include <algorithm>

#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Dft.hpp"
#include "tessera/Registry.hpp"
#include "kernels/dft.hpp"

namespace tessera {
namespace {

// The direct sum costs L multiply-adds per bin: longer transforms stay on the CPU's FFT.
constexpr int64_t kMaxLength = 1 << 14;

const Tensor* optionalInput(const Tensors& inputs, size_t i) {
  return i < inputs.size() && inputs[i] && inputs[i]->dtype() != DataType::kUnknown ? inputs[i] : nullptr;
}

class OpenClDft final : public OpenClExecution {
 public:
  OpenClDft(Backend* b, const Node& node, const DftParams& p) : OpenClExecution(b), node_(node), params_(p) {}
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    DftGeometry g;
    TESSERA_RETURN_IF_ERROR(
        resolveDft(node_, params_, inputs[0]->shape(), optionalInput(inputs, 1), optionalInput(inputs, 2), &g));
    const std::vector<float> tw = dftTwiddles(g.length, params_.inverse);
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(tw.size() * sizeof(float), tw.data(), &twiddles_, "DFT twiddles"));
    const double scale = params_.inverse ? 1.0 / static_cast<double>(g.length) : 1.0;
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::dft::dft, KernelOptions(), &k));
    k->tensor(inputs[0]).mem(twiddles_.get()).tensor(outputs[0]).arg(g.outer).arg(g.bins).arg(g.inner);
    k->arg(g.signal).arg(std::min(g.signal, g.length)).arg(g.length).arg(g.channels).arg(scale);
    return dispatch(k, {g.inner, g.bins, g.outer});
  }

 private:
  Node node_;
  DftParams params_;
  ClBuffer twiddles_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  if (!x || x->dtype() != DataType::kF32 || outputs.empty() || !outputs[0]) return nullptr;
  if (x->elementCount() >= (int64_t(1) << 31) || outputs[0]->elementCount() >= (int64_t(1) << 31)) return nullptr;
  if (outputs[0]->elementCount() == 0) return nullptr;  // nothing to run; the CPU makes the empty tensor
  DftParams p;
  DftGeometry g;
  if (!DftParams::parse(node, &p).isOk()) return nullptr;
  if (!resolveDft(node, p, x->shape(), optionalInput(inputs, 1), optionalInput(inputs, 2), &g).isOk())
    return nullptr;  // a dft_length or axis only known at run time: the CPU
  if (g.length > kMaxLength) return nullptr;
  return makeExecution<OpenClDft>(b, node, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, DFT, create);

}  // namespace tessera
