// OpenCL Resize / Upsample (f32, rank 4, resizing H and W only; roi/scales/sizes known at
// planning) on NC4HW4, plus the optional sum Z (ops/Resize.hpp). The taps come from
// ops/Resize.hpp, the same as every backend's.
#include <cmath>
#include <vector>

#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Resize.hpp"
#include "tessera/Registry.hpp"
#include "kernels/resize.hpp"

namespace tessera {
namespace {

struct AxisTaps {
  std::vector<cl_int4> index;
  std::vector<cl_float4> weight;
};

AxisTaps packTaps(const std::vector<ResizeTaps>& taps) {
  AxisTaps a;
  for (const ResizeTaps& t : taps) {
    cl_int4 i{{0, 0, 0, 0}};
    cl_float4 w{{0, 0, 0, 0}};
    for (int k = 0; k < t.count && k < 4; ++k) {
      i.s[k] = static_cast<cl_int>(t.index[k]);
      w.s[k] = t.weight[k];
    }
    if (t.outside) i.s[0] = -1;
    a.index.push_back(i);
    a.weight.push_back(w);
  }
  return a;
}

bool isIdentityAxis(const std::vector<ResizeTaps>& taps) {
  for (size_t o = 0; o < taps.size(); ++o) {
    const ResizeTaps& t = taps[o];
    if (t.outside || t.count < 1) return false;
    float same = 0.f;  // weights may be split over repeated taps of the same index
    for (int k = 0; k < t.count; ++k) {
      if (t.index[k] == static_cast<int64_t>(o)) same += t.weight[k];
      else if (t.weight[k] != 0.f) return false;
    }
    if (std::fabs(same - 1.f) > 1e-6f) return false;
  }
  return true;
}

class OpenClResize final : public OpenClExecution {
 public:
  // Inputs after the data (sizes, starts, axes, a shape...) are read on the host while
  // planning: constant ones are not uploaded.
  bool readsConstantOnHost(size_t input) const override { return input >= 1; }
  OpenClResize(Backend* b, AxisTaps h, AxisTaps w, float extrapolation)
      : OpenClExecution(b), h_(std::move(h)), w_(std::move(w)), extrapolation_(extrapolation) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    in->assign(available.size(), Layout::kNCHW);
    (*in)[0] = Layout::kNC4HW4;
    if (in->size() > kResizeSumInput) (*in)[kResizeSumInput] = Layout::kNC4HW4;  // Z as y
    (*out)[0] = Layout::kNC4HW4;
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(h_.index.size() * 16, h_.index.data(), &hIdx_, "Resize taps"));
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(h_.weight.size() * 16, h_.weight.data(), &hW_, "Resize taps"));
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(w_.index.size() * 16, w_.index.data(), &wIdx_, "Resize taps"));
    TESSERA_RETURN_IF_ERROR(cl()->createBuffer(w_.weight.size() * 16, w_.weight.data(), &wW_, "Resize taps"));
    const Tensor* x = inputs[0];
    const Tensor* y = outputs[0];
    const Nc4Geometry xg = nc4Geometry(x->shape()), yg = nc4Geometry(y->shape());
    // The sum Z (ops/Resize.hpp), or x in its place, unread without -DHAS_Z.
    const Tensor* z = inputs.size() > kResizeSumInput ? inputs[kResizeSumInput] : nullptr;
    KernelOptions options;
    options.storage("src", x).storage("dst", y).storage("z", z ? z : x);
    if (z) options.define("HAS_Z");
    ClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::resize::resize_nc4, options, &k));
    k->tensor(x).tensor(y).mem(hIdx_.get()).mem(hW_.get()).mem(wIdx_.get()).mem(wW_.get());
    k->arg(xg.c).arg(xg.h).arg(xg.w).arg(yg.h).arg(yg.w).arg(extrapolation_).arg(yg.height()).tensor(z ? z : x);
    return dispatchNc4(k, yg);
  }

 private:
  AxisTaps h_, w_;
  float extrapolation_;
  ClBuffer hIdx_, hW_, wIdx_, wW_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors& outputs) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  if (!x || x->dtype() != DataType::kF32 || x->rank() != 4) return nullptr;
  if (inputs.size() > kResizeSumInput && inputs[kResizeSumInput] && inputs[kResizeSumInput]->dtype() != DataType::kF32)
    return nullptr;
  ResizeParams p;
  if (!ResizeParams::parse(node, &p).isOk()) return nullptr;
  auto input = [&](int i) -> const Tensor* {
    return i >= 0 && i < static_cast<int>(inputs.size()) ? inputs[i] : nullptr;
  };
  for (int i : {p.roiInput, p.scalesInput, p.sizesInput}) {
    const Tensor* t = input(i);
    if (t && t->elementCount() > 0 && !t->data()) return nullptr;
  }
  ResizeGeometry g;
  if (!resolveResize(p, x->shape(), input(p.roiInput), input(p.scalesInput), input(p.sizesInput), &g).isOk())
    return nullptr;
  if (g.output != outputs[0]->shape()) return nullptr;
  if (!isIdentityAxis(resizeAxisTaps(p, g, 0)) || !isIdentityAxis(resizeAxisTaps(p, g, 1))) return nullptr;
  return makeExecution<OpenClResize>(b, node, packTaps(resizeAxisTaps(p, g, 2)), packTaps(resizeAxisTaps(p, g, 3)),
                                     p.extrapolationValue);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Resize, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Upsample, create);

}  // namespace tessera
