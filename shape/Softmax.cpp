// Softmax / LogSoftmax: the output has the input's shape and dtype.
#include "ops/Softmax.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status softmaxShape(ShapeContext& ctx) {
  SoftmaxParams p;
  TESSERA_RETURN_IF_ERROR(SoftmaxParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  if (!isFloat(x->dtype())) return ctx.error("input " + x->describe() + " must be a float tensor");
  int64_t outer, n, inner;
  TESSERA_RETURN_IF_ERROR(p.split3(ctx.node, x->shape(), &outer, &n, &inner));
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Softmax, softmaxShape);
TESSERA_REGISTER_SHAPE(LogSoftmax, softmaxShape);
TESSERA_REGISTER_SHAPE(Hardmax, softmaxShape);  // same axis rules, same output

}  // namespace tessera
