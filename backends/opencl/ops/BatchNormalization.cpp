// OpenCL BatchNormalization (inference, f32, constant statistics) on NC4HW4: folded on the
// host into y = x * a[c] + b[c].
#include <cmath>
#include <vector>

#include "backends/opencl/OpenClExecution.hpp"
#include "ops/BatchNormalization.hpp"
#include "tessera/Registry.hpp"
#include "kernels/norm.hpp"

namespace tessera {
namespace {

class OpenClBatchNorm final : public OpenClExecution {
 public:
  // Constant statistics: folded into a and b. Otherwise (empty a) read on the device.
  OpenClBatchNorm(Backend* b, std::vector<float> a, std::vector<float> bias, float epsilon)
      : OpenClExecution(b), a_(std::move(a)), b_(std::move(bias)), epsilon_(epsilon) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), Layout::kNCHW);
    (*in)[0] = Layout::kNC4HW4;
    (*out)[0] = Layout::kNC4HW4;
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    if (a_.empty()) {
      const Tensor* x = inputs[0];
      const Tensor* y = outputs[0];
      const Nc4Geometry g = nc4Geometry(x->shape());
      ClKernel* k = nullptr;
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::norm::batch_norm, KernelOptions().storage("src", x).storage("dst", y), &k));
      k->tensor(x).tensor(inputs[1]).tensor(inputs[2]).tensor(inputs[3]).tensor(inputs[4]).tensor(y);
      k->arg(g.c).arg(g.w).arg(g.width()).arg(g.height()).arg(epsilon_);
      return dispatchNc4(k, g);
    }
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(a_.size() * 4, a_.data(), &aBuf_, "BatchNormalization scale"));
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(b_.size() * 4, b_.data(), &bBuf_, "BatchNormalization shift"));
    const Tensor* x = inputs[0];
    const Tensor* y = outputs[0];
    const Nc4Geometry g = nc4Geometry(x->shape());
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::norm::channel_affine,
                                      KernelOptions().storage("src", x).storage("dst", y), &k));
    k->tensor(x).mem(aBuf_.get()).mem(bBuf_.get()).tensor(y).arg(g.w).arg(g.width()).arg(g.height());
    return dispatchNc4(k, g);
  }

 private:
  std::vector<float> a_, b_;
  float epsilon_;
  ClBuffer aBuf_, bBuf_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  if (inputs.size() != 5 || outputs.size() != 1) return nullptr;
  for (const Tensor* t : inputs)
    if (!t || t->dtype() != DataType::kF32) return nullptr;
  const Tensor* x = inputs[0];
  if (x->rank() < 2 || x->rank() > 4) return nullptr;
  const int64_t C = x->dim(1);
  bool known = true;
  for (int i = 1; i < 5; ++i) {
    if (inputs[i]->elementCount() != C) return nullptr;
    known = known && inputs[i]->data();
  }
  BatchNormalizationParams p;
  if (!BatchNormalizationParams::parse(node, &p).isOk()) return nullptr;
  if (!known) return makeExecution<OpenClBatchNorm>(b, node, std::vector<float>(), std::vector<float>(), p.epsilon);
  const int64_t C4 = (C + 3) / 4;
  std::vector<float> a(C4 * 4, 0.f), sh(C4 * 4, 0.f);
  const float* scale = inputs[1]->data<float>();
  const float* bias = inputs[2]->data<float>();
  const float* mean = inputs[3]->data<float>();
  const float* var = inputs[4]->data<float>();
  for (int64_t c = 0; c < C; ++c) {
    const double k = scale[c] / std::sqrt(static_cast<double>(var[c]) + p.epsilon);
    a[c] = static_cast<float>(k);
    sh[c] = static_cast<float>(bias[c] - mean[c] * k);
  }
  return makeExecution<OpenClBatchNorm>(b, node, std::move(a), std::move(sh), p.epsilon);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, BatchNormalization, create);

}  // namespace tessera
