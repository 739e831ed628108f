// ScaledTanh on the OpenCL backend: an OpenCL C kernel built at run time on the session's
// device. X and Y are NC4HW4 (image2d, or buffers past the image limits: the prelude's
// NC4_IN/LOAD4/... macros serve both from one source); B is read on the host once per plan,
// packed to one float4 per four channels and uploaded (onPrepare).
#include <memory>
#include <vector>

#include "ScaledTanh.hpp"
#include "tessera/OpenClKernel.hpp"  // and tessera/BuildConfig.hpp

#ifndef TESSERA_WITH_OPENCL
#error "tessera/BuildConfig.hpp missing: this example needs a Tessera with BuildConfig.hpp"
#endif

namespace example {

#if TESSERA_WITH_OPENCL

namespace {

using tessera::Status;

// One work-item per NC4HW4 pixel (x = (c/4)*W + w, y = n*H + h): four channels at once.
const char kSource[] = R"CL(
__kernel void scaled_tanh(NC4_IN(x), __global const float4* bias, NC4_OUT(y),
                          int width, int height, int W, float alpha, float beta) {
  const int px = get_global_id(0), py = get_global_id(1);
  if (px >= width || py >= height) return;  // the global size is rounded up to the local size
  const float4 v = LOAD4(x, px, py, width);
  STORE4(y, px, py, width, alpha * tanh(beta * v) + bias[px / W]);
}
)CL";

class OpenClScaledTanh final : public tessera::OpenClCustomExecution {
 public:
  OpenClScaledTanh(tessera::Backend* b, ScaledTanhParams p) : OpenClCustomExecution(b), p_(p) {
    setInputLayouts({tessera::Layout::kNC4HW4});   // X; B is a host constant (below)
    setOutputLayouts({tessera::Layout::kNC4HW4});
    setHostConstantInputs({1});
  }

  // Once per plan: the bias, zero in the padding lanes so padded channels stay zero.
  Status onPrepare(const tessera::Tensors& in, const tessera::Tensors&) override {
    const tessera::Tensor* b = in[1];
    std::vector<float> packed((b->elementCount() + 3) / 4 * 4, 0.f);
    for (int64_t c = 0; c < b->elementCount(); ++c) packed[c] = b->data<float>()[c];
    return createBuffer(packed.size() * sizeof(float), packed.data(), &bias_);
  }

  // Shapes known: the program for these tensors' storage, its arguments and work size.
  Status onPlan(const tessera::Tensors& in, const tessera::Tensors& out) override {
    tessera::OpenClProgram program;
    const auto options = tessera::OpenClBuildOptions().storage("x", in[0]).storage("y", out[0]);
    TESSERA_RETURN_IF_ERROR(buildProgram("scaled_tanh", kSource, options, &program));
    tessera::OpenClKernel* k = nullptr;
    TESSERA_RETURN_IF_ERROR(addKernel(program, "scaled_tanh", &k));
    const tessera::Nc4Geometry g = tessera::nc4Geometry(out[0]->shape());
    k->tensor(in[0]).buffer(bias_).tensor(out[0]);
    k->arg(int32_t(g.width())).arg(int32_t(g.height())).arg(int32_t(g.w)).arg(p_.alpha).arg(p_.beta);
    return k->setWorkSize({g.width(), g.height()}, {8, 4});
  }

 private:
  ScaledTanhParams p_;
  tessera::OpenClBuffer* bias_ = nullptr;
};

}  // namespace

Status registerScaledTanhOpenCl() {
  tessera::CustomKernel k;
  k.backend = tessera::BackendType::kOpenCL;
  k.provider = "example";
  k.domain = "com.example";
  k.opType = "ScaledTanh";
  k.dtype = tessera::DataType::kF32;
  k.create = [](tessera::Backend* b, const tessera::Node& n, const tessera::Tensors& in,
                const tessera::Tensors&) -> std::unique_ptr<tessera::Execution> {
    if (in.size() < 2 || !in[1] || !in[1]->data()) return nullptr;  // B not constant: let the CPU run it
    return std::make_unique<OpenClScaledTanh>(b, ScaledTanhParams::from(n));
  };
  return tessera::registerCustomKernel(k);
}

#else

tessera::Status registerScaledTanhOpenCl() {
  return tessera::Status::unavailable("this Tessera was built without OpenCL");
}

#endif

}  // namespace example
