// Elementwise unary ops: the output has the input's shape and dtype.
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status sameAsInput(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Abs, sameAsInput);
TESSERA_REGISTER_SHAPE(Neg, sameAsInput);
TESSERA_REGISTER_SHAPE(Reciprocal, sameAsInput);
TESSERA_REGISTER_SHAPE(Floor, sameAsInput);
TESSERA_REGISTER_SHAPE(Ceil, sameAsInput);
TESSERA_REGISTER_SHAPE(Round, sameAsInput);
TESSERA_REGISTER_SHAPE(Sqrt, sameAsInput);
TESSERA_REGISTER_SHAPE(Exp, sameAsInput);
TESSERA_REGISTER_SHAPE(Log, sameAsInput);
TESSERA_REGISTER_SHAPE(Sin, sameAsInput);
TESSERA_REGISTER_SHAPE(Cos, sameAsInput);
TESSERA_REGISTER_SHAPE(Tan, sameAsInput);
TESSERA_REGISTER_SHAPE(Erf, sameAsInput);
TESSERA_REGISTER_SHAPE(Sign, sameAsInput);
TESSERA_REGISTER_SHAPE(Tanh, sameAsInput);
TESSERA_REGISTER_SHAPE(Sigmoid, sameAsInput);
TESSERA_REGISTER_SHAPE(Relu, sameAsInput);
TESSERA_REGISTER_SHAPE(LeakyRelu, sameAsInput);
TESSERA_REGISTER_SHAPE(Elu, sameAsInput);
TESSERA_REGISTER_SHAPE(Selu, sameAsInput);
TESSERA_REGISTER_SHAPE(Celu, sameAsInput);
TESSERA_REGISTER_SHAPE(Softplus, sameAsInput);
TESSERA_REGISTER_SHAPE(Softsign, sameAsInput);
TESSERA_REGISTER_SHAPE(ThresholdedRelu, sameAsInput);
TESSERA_REGISTER_SHAPE(HardSigmoid, sameAsInput);
TESSERA_REGISTER_SHAPE(HardSwish, sameAsInput);
TESSERA_REGISTER_SHAPE(Identity, sameAsInput);
TESSERA_REGISTER_SHAPE(Acos, sameAsInput);
TESSERA_REGISTER_SHAPE(Asin, sameAsInput);
TESSERA_REGISTER_SHAPE(Atan, sameAsInput);
TESSERA_REGISTER_SHAPE(Acosh, sameAsInput);
TESSERA_REGISTER_SHAPE(Asinh, sameAsInput);
TESSERA_REGISTER_SHAPE(Atanh, sameAsInput);
TESSERA_REGISTER_SHAPE(Cosh, sameAsInput);
TESSERA_REGISTER_SHAPE(Sinh, sameAsInput);
TESSERA_REGISTER_SHAPE(Shrink, sameAsInput);

}  // namespace tessera
