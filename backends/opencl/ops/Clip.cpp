// OpenCL Clip (f32) with constant bounds, through the unary kernel (OP_CLIP), on whatever
// layout its input has.
#include <limits>

#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Clip.hpp"
#include "tessera/Registry.hpp"
#include "kernels/unary.hpp"

namespace tessera {
namespace {

class OpenClClip final : public OpenClExecution {
 public:
  // deviceBounds: the bounds are inputs computed on the device (not known at planning).
  OpenClClip(Backend* b, float lo, float hi, bool deviceBounds)
      : OpenClExecution(b), lo_(lo), hi_(hi), deviceBounds_(deviceBounds) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    const Layout l = available[0] == Layout::kNC4HW4 ? Layout::kNC4HW4 : Layout::kNCHW;
    in->assign(available.size(), Layout::kNCHW);
    (*in)[0] = l;
    (*out)[0] = l;
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const Tensor* y = outputs[0];
    ClKernel* k = nullptr;
    if (deviceBounds_) {
      const Tensor* lo = inputs.size() > 1 ? inputs[1] : nullptr;
      const Tensor* hi = inputs.size() > 2 ? inputs[2] : nullptr;
      // A missing bound still needs a buffer argument (never read).
      TESSERA_RETURN_IF_ERROR(cl()->createBuffer(16, nullptr, &unused_, "Clip placeholder"));
      const cl_mem loMem = lo ? OpenClBackend::storage(lo)->mem : unused_.get();
      const cl_mem hiMem = hi ? OpenClBackend::storage(hi)->mem : unused_.get();
      if (isNc4(x)) {
        const Nc4Geometry g = nc4Geometry(x->shape());
        TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::unary::clip_nc4, KernelOptions().storage("src", x).storage("dst", y), &k));
        k->tensor(x).tensor(y).mem(loMem).mem(hiMem).arg(lo ? 1 : 0).arg(hi ? 1 : 0);
        k->arg(g.c).arg(g.w).arg(g.width()).arg(g.height());
        return dispatchNc4(k, g);
      }
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::unary::clip_plain, KernelOptions(), &k));
      k->tensor(x).tensor(y).mem(loMem).mem(hiMem).arg(lo ? 1 : 0).arg(hi ? 1 : 0).arg(x->elementCount());
      return dispatch(k, {x->elementCount()});
    }
    if (isNc4(x)) {
      const Nc4Geometry g = nc4Geometry(x->shape());
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::unary::unary_nc4,
                                        KernelOptions().define("OP_CLIP").storage("src", x).storage("dst", y), &k));
      k->tensor(x).tensor(y).arg(g.c).arg(g.w).arg(g.width()).arg(g.height()).arg(lo_).arg(hi_).arg(0.f);
      return dispatchNc4(k, g);
    }
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::unary::unary_plain, KernelOptions().define("OP_CLIP"), &k));
    k->tensor(x).tensor(y).arg(x->elementCount()).arg(lo_).arg(hi_).arg(0.f);
    return dispatch(k, {x->elementCount()});
  }

 private:
  float lo_, hi_;
  bool deviceBounds_;
  ClBuffer unused_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  const Tensor* x = inputs[0];
  if (!x || x->dtype() != DataType::kF32) return nullptr;
  ClipParams p;
  if (!ClipParams::parse(node, &p).isOk()) return nullptr;
  float lo = p.minAttr, hi = p.maxAttr;
  if (p.boundsFromInputs) {
    lo = -std::numeric_limits<float>::infinity();
    hi = std::numeric_limits<float>::infinity();
    bool known = true;
    for (size_t i = 1; i < inputs.size() && i < 3; ++i) {
      const Tensor* t = inputs[i];
      if (!t) continue;
      if (t->dtype() != DataType::kF32 || t->elementCount() != 1) return nullptr;
      if (!t->data()) known = false;
      else (i == 1 ? lo : hi) = t->data<float>()[0];
    }
    if (!known) return makeExecution<OpenClClip>(b, node, lo, hi, true);
  }
  return makeExecution<OpenClClip>(b, node, lo, hi, false);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Clip, create);

}  // namespace tessera
