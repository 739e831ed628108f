// OpenCL elementwise unary ops (f32): on NC4HW4 tensors (image or buffer) when the input
// is NC4HW4 already, else on plain buffers; no conversion is ever inserted for them.
#include "backends/opencl/OpenClExecution.hpp"
#include "ops/Unary.hpp"
#include "tessera/Registry.hpp"
#include "kernels/unary.hpp"

namespace tessera {
namespace {

const char* opDefine(UnaryKind k) {
  switch (k) {
    case UnaryKind::kAbs: return "OP_ABS";
    case UnaryKind::kNeg: return "OP_NEG";
    case UnaryKind::kReciprocal: return "OP_RECIPROCAL";
    case UnaryKind::kFloor: return "OP_FLOOR";
    case UnaryKind::kCeil: return "OP_CEIL";
    case UnaryKind::kRound: return "OP_ROUND";
    case UnaryKind::kSqrt: return "OP_SQRT";
    case UnaryKind::kExp: return "OP_EXP";
    case UnaryKind::kLog: return "OP_LOG";
    case UnaryKind::kSin: return "OP_SIN";
    case UnaryKind::kCos: return "OP_COS";
    case UnaryKind::kTan: return "OP_TAN";
    case UnaryKind::kErf: return "OP_ERF";
    case UnaryKind::kSign: return "OP_SIGN";
    case UnaryKind::kTanh: return "OP_TANH";
    case UnaryKind::kSigmoid: return "OP_SIGMOID";
    case UnaryKind::kRelu: return "OP_RELU";
    case UnaryKind::kLeakyRelu: return "OP_LEAKY_RELU";
    case UnaryKind::kElu: return "OP_ELU";
    case UnaryKind::kSelu: return "OP_SELU";
    case UnaryKind::kCelu: return "OP_CELU";
    case UnaryKind::kSoftplus: return "OP_SOFTPLUS";
    case UnaryKind::kSoftsign: return "OP_SOFTSIGN";
    case UnaryKind::kThresholdedRelu: return "OP_THRESHOLDED_RELU";
    case UnaryKind::kHardSigmoid: return "OP_HARD_SIGMOID";
    case UnaryKind::kHardSwish: return "OP_HARD_SWISH";
    case UnaryKind::kIdentity: return "OP_IDENTITY";
    case UnaryKind::kAcos: return "OP_ACOS";
    case UnaryKind::kAsin: return "OP_ASIN";
    case UnaryKind::kAtan: return "OP_ATAN";
    case UnaryKind::kAcosh: return "OP_ACOSH";
    case UnaryKind::kAsinh: return "OP_ASINH";
    case UnaryKind::kAtanh: return "OP_ATANH";
    case UnaryKind::kCosh: return "OP_COSH";
    case UnaryKind::kSinh: return "OP_SINH";
    case UnaryKind::kShrink: return "OP_SHRINK";
  }
  return "OP_IDENTITY";
}

class OpenClUnary final : public OpenClExecution {
 public:
  OpenClUnary(Backend* b, const UnaryParams& p) : OpenClExecution(b), params_(p) {}

  void selectLayouts(const std::vector<Layout>& available, const Tensors&, std::vector<Layout>* in,
                     std::vector<Layout>* out) const override {
    const Layout l = available[0] == Layout::kNC4HW4 ? Layout::kNC4HW4 : Layout::kNCHW;
    *in = {l};
    *out = {l};
  }

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    clearKernels();
    const Tensor* x = inputs[0];
    const Tensor* y = outputs[0];
    ClKernel* k = nullptr;
    if (isNc4(x)) {
      const Nc4Geometry g = nc4Geometry(x->shape());
      TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::unary::unary_nc4,
                                        KernelOptions().define(opDefine(params_.kind)).storage("src", x).storage("dst", y), &k));
      k->tensor(x).tensor(y).arg(g.c).arg(g.w).arg(g.width()).arg(g.height());
      k->arg(params_.alpha).arg(params_.beta).arg(params_.gamma);
      return dispatchNc4(k, g);
    }
    TESSERA_RETURN_IF_ERROR(addKernel(opencl::kernels::unary::unary_plain,
                                      KernelOptions().define(opDefine(params_.kind)), &k));
    k->tensor(x).tensor(y).arg(x->elementCount()).arg(params_.alpha).arg(params_.beta).arg(params_.gamma);
    return dispatch(k, {x->elementCount()});
  }

 private:
  UnaryParams params_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  UnaryParams p;
  if (!UnaryParams::parse(node, &p).isOk()) return nullptr;
  if (inputs[0]->dtype() != DataType::kF32) return nullptr;
  return makeExecution<OpenClUnary>(b, node, p);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kOpenCL, Abs, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Neg, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Reciprocal, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Floor, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Ceil, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Round, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Sqrt, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Exp, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Log, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Sin, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Cos, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Tan, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Erf, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Sign, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Tanh, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Sigmoid, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Relu, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, LeakyRelu, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Elu, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Selu, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Celu, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Softplus, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Softsign, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, ThresholdedRelu, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, HardSigmoid, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, HardSwish, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Identity, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Acos, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Asin, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Atan, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Acosh, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Asinh, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Atanh, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Cosh, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Sinh, create);
TESSERA_REGISTER_EXECUTION(kOpenCL, Shrink, create);

}  // namespace tessera
