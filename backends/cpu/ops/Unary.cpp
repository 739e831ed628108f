// CPU elementwise unary ops. Layout-agnostic: it runs on whatever layout its input has
// (NC4HW4 included, padding lanes computed and ignored), so no conversion is inserted.
#include <cstring>

#include "backends/cpu/CpuBackend.hpp"
#include "ops/Unary.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuUnary final : public Execution {
 public:
  CpuUnary(Backend* b, const UnaryParams& p) : Execution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&,
                     std::vector<Layout>* in, std::vector<Layout>* out) const override {
    *in = {available[0]};
    *out = {available[0]};
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const Tensor& x = *inputs[0];
    Tensor& y = *outputs[0];
    const int64_t n = physicalElementCount(x.shape(), x.layout());
    if (params_.kind == UnaryKind::kIdentity) {
      std::memcpy(y.data(), x.data(), x.byteSize());
      return Status::ok();
    }
    if (x.dtype() == DataType::kF32) {
      const float* src = x.data<float>();
      float* dst = y.data<float>();
      const UnaryParams p = params_;
      cpuPool(*this).parallelFor(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dst[i] = applyUnary(p, src[i]);
      }, 4096);
    } else {
      const double* src = x.data<double>();
      double* dst = y.data<double>();
      for (int64_t i = 0; i < n; ++i) dst[i] = applyUnary(params_, src[i]);
    }
    return Status::ok();
  }

 private:
  UnaryParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  UnaryParams p;
  if (!UnaryParams::parse(node, &p).isOk()) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (p.kind == UnaryKind::kIdentity) return std::make_unique<CpuUnary>(b, p);  // any dtype
  if (t != DataType::kF32 && t != DataType::kF64) return nullptr;
  return std::make_unique<CpuUnary>(b, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Abs, create);
TESSERA_REGISTER_EXECUTION(kCPU, Neg, create);
TESSERA_REGISTER_EXECUTION(kCPU, Reciprocal, create);
TESSERA_REGISTER_EXECUTION(kCPU, Floor, create);
TESSERA_REGISTER_EXECUTION(kCPU, Ceil, create);
TESSERA_REGISTER_EXECUTION(kCPU, Round, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sqrt, create);
TESSERA_REGISTER_EXECUTION(kCPU, Exp, create);
TESSERA_REGISTER_EXECUTION(kCPU, Log, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sin, create);
TESSERA_REGISTER_EXECUTION(kCPU, Cos, create);
TESSERA_REGISTER_EXECUTION(kCPU, Tan, create);
TESSERA_REGISTER_EXECUTION(kCPU, Erf, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sign, create);
TESSERA_REGISTER_EXECUTION(kCPU, Tanh, create);
TESSERA_REGISTER_EXECUTION(kCPU, Sigmoid, create);
TESSERA_REGISTER_EXECUTION(kCPU, Relu, create);
TESSERA_REGISTER_EXECUTION(kCPU, LeakyRelu, create);
TESSERA_REGISTER_EXECUTION(kCPU, Elu, create);
TESSERA_REGISTER_EXECUTION(kCPU, Selu, create);
TESSERA_REGISTER_EXECUTION(kCPU, Celu, create);
TESSERA_REGISTER_EXECUTION(kCPU, Softplus, create);
TESSERA_REGISTER_EXECUTION(kCPU, Softsign, create);
TESSERA_REGISTER_EXECUTION(kCPU, ThresholdedRelu, create);
TESSERA_REGISTER_EXECUTION(kCPU, HardSigmoid, create);
TESSERA_REGISTER_EXECUTION(kCPU, HardSwish, create);
TESSERA_REGISTER_EXECUTION(kCPU, Identity, create);

}  // namespace tessera
