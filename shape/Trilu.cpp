// Trilu: the input's shape and dtype; at least 2-D; k, when given, a single int64.
#include "ops/Trilu.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status triluShape(ShapeContext& ctx) {
  TriluParams p;
  TESSERA_RETURN_IF_ERROR(TriluParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'input' is missing");
  if (x->rank() < 2) return ctx.error("input " + x->describe() + " must be at least 2-D");
  const Tensor* k = ctx.input(1);
  if (k && k->dtype() != DataType::kUnknown &&
      (k->dtype() != DataType::kI64 || k->elementCount() != 1))
    return ctx.error("k " + k->describe() + " must be a single int64");
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Trilu, triluShape);

}  // namespace tessera
