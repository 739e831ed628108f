// ScaledTanh on the Vulkan backend: a GLSL compute kernel compiled at run time (glslang, in
// Tessera) on the session's device. X and Y are NC4HW4 (storage images, or NCHW buffers past
// the image limits: the prelude's NC4_IN/NC4_OUT serve both from one source); B is read on
// the host once per plan, padded to whole pixels of four channels and uploaded (onPrepare).
#include <memory>
#include <vector>

#include "ScaledTanh.hpp"
#include "tessera/VulkanKernel.hpp"  // and tessera/BuildConfig.hpp

namespace example {

#if TESSERA_WITH_VULKAN

namespace {

using tessera::Status;

// One invocation per NC4HW4 pixel, (n, c4, h, w) = pixelOf(i, (C, H, W)): four channels at once.
// P: 0 pixels, 1..3 C H W, 4 alpha, 5 beta.
const char kSource[] = R"GLSL(#version 450
NC4_IN(0, x);
F32_IN(1, bias);
NC4_OUT(2, y);
void main() {
  uint i = gid();
  if (i >= P[0]) return;  // groups of 64 are launched
  ivec3 g = ivec3(pint(1), pint(2), pint(3));
  ivec4 p = pixelOf(i, g);
  vec4 b = vec4(bias[p.y * 4], bias[p.y * 4 + 1], bias[p.y * 4 + 2], bias[p.y * 4 + 3]);
  store_y(g, p.x, p.y, p.z, p.w, pfloat(4) * tanh(pfloat(5) * load_x(g, p.x, p.y, p.z, p.w)) + b);
}
)GLSL";

class VulkanScaledTanh final : public tessera::VulkanCustomExecution {
 public:
  VulkanScaledTanh(tessera::Backend* b, ScaledTanhParams p) : VulkanCustomExecution(b), p_(p) {
    setInputLayouts({tessera::Layout::kNC4HW4});  // X; B is a host constant (below)
    setOutputLayouts({tessera::Layout::kNC4HW4});
    setHostConstantInputs({1});
  }

  // Once per plan: compile the kernel for this storage, upload the bias (0 in padding lanes).
  Status onPrepare(const tessera::Tensors& in, const tessera::Tensors&) override {
    TESSERA_RETURN_IF_ERROR(buildPipeline("scaled_tanh", kSource, {}, &pipeline_));
    const tessera::Tensor* b = in[1];
    std::vector<float> padded((b->elementCount() + 3) / 4 * 4, 0.f);
    for (int64_t c = 0; c < b->elementCount(); ++c) padded[c] = b->data<float>()[c];
    return createBuffer(padded.size() * sizeof(float), padded.data(), &bias_);
  }

  // Shapes known: one dispatch over the output's pixels.
  Status onPlan(const tessera::Tensors& in, const tessera::Tensors& out) override {
    const tessera::Shape& s = out[0]->shape();
    const int64_t pixels = s[0] * ((s[1] + 3) / 4) * s[2] * s[3];
    tessera::VulkanDispatch* d = nullptr;
    TESSERA_RETURN_IF_ERROR(addDispatch(pipeline_, &d));
    d->tensor(in[0]).buffer(bias_).tensor(out[0]);
    d->param(uint32_t(pixels)).param(int32_t(s[1])).param(int32_t(s[2])).param(int32_t(s[3]));
    d->param(p_.alpha).param(p_.beta).invocations(pixels);
    return Status::ok();
  }

 private:
  ScaledTanhParams p_;
  tessera::VulkanPipeline pipeline_;
  tessera::VulkanKernelBuffer* bias_ = nullptr;
};

}  // namespace

Status registerScaledTanhVulkan() {
  tessera::CustomKernel k;
  k.backend = tessera::BackendType::kVulkan;
  k.provider = "example";
  k.domain = "com.example";
  k.opType = "ScaledTanh";
  k.dtype = tessera::DataType::kF32;
  k.create = [](tessera::Backend* b, const tessera::Node& n, const tessera::Tensors& in,
                const tessera::Tensors&) -> std::unique_ptr<tessera::Execution> {
    if (in.size() < 2 || !in[1] || !in[1]->data() || in[0]->rank() != 4) return nullptr;  // let the CPU run it
    return std::make_unique<VulkanScaledTanh>(b, ScaledTanhParams::from(n));
  };
  return tessera::registerCustomKernel(k);
}

#else

tessera::Status registerScaledTanhVulkan() {
  return tessera::Status::unavailable("this Tessera was built without Vulkan");
}

#endif

}  // namespace example
