// ScaledTanh's shape function and its CPU kernel (plain NCHW host memory).
#include <cmath>
#include <memory>

#include "ScaledTanh.hpp"

namespace example {
namespace {

using tessera::Status;

Status scaledTanhShape(tessera::ShapeContext& ctx) {
  const tessera::Tensor* x = ctx.input(0);
  const tessera::Tensor* b = ctx.input(1);
  if (!x || !b) return ctx.error("inputs 'X' and 'B' are required");
  if (x->dtype() != tessera::DataType::kF32 || b->dtype() != tessera::DataType::kF32)
    return ctx.error("'X' and 'B' must be f32");
  if (x->rank() != 4 || b->rank() != 1 || b->dim(0) != x->dim(1))
    return ctx.error("'X' must be [N, C, H, W] and 'B' [C]; got " + x->describe() + " and " + b->describe());
  ctx.output(0) = tessera::Tensor(x->shape(), x->dtype());
  return Status::ok();
}

class CpuScaledTanh final : public tessera::Execution {
 public:
  CpuScaledTanh(tessera::Backend* b, ScaledTanhParams p) : Execution(b), p_(p) {}
  Status onExecute(const tessera::Tensors& in, const tessera::Tensors& out) override {
    const float* x = in[0]->data<float>();
    const float* bias = in[1]->data<float>();
    float* y = out[0]->data<float>();
    const int64_t channels = in[0]->dim(1), plane = in[0]->dim(2) * in[0]->dim(3);
    for (int64_t i = 0; i < in[0]->elementCount(); ++i)
      y[i] = p_.alpha * std::tanh(p_.beta * x[i]) + bias[(i / plane) % channels];
    return Status::ok();
  }

 private:
  ScaledTanhParams p_;
};

}  // namespace

Status registerScaledTanhOp() {
  return tessera::registerCustomOp("com.example", "ScaledTanh", scaledTanhShape);
}

Status registerScaledTanhCpu() {
  tessera::CustomKernel k;
  k.backend = tessera::BackendType::kCPU;
  k.provider = "example";
  k.domain = "com.example";
  k.opType = "ScaledTanh";
  k.dtype = tessera::DataType::kF32;
  k.create = [](tessera::Backend* b, const tessera::Node& n, const tessera::Tensors&,
                const tessera::Tensors&) -> std::unique_ptr<tessera::Execution> {
    return std::make_unique<CpuScaledTanh>(b, ScaledTanhParams::from(n));
  };
  return tessera::registerCustomKernel(k);
}

}  // namespace example
