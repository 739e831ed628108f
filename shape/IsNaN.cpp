// IsNaN and IsInf: a float input's shape, bool output.
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status floatTestShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  if (!isFloat(x->dtype())) return ctx.error("input 0 " + x->describe() + " must be a float tensor");
  ctx.output(0) = Tensor(x->shape(), DataType::kBool);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(IsNaN, floatTestShape);
TESSERA_REGISTER_SHAPE(IsInf, floatTestShape);

}  // namespace tessera
