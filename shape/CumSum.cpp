// CumSum: x's shape and numeric dtype; the axis input must be a constant (or specialized)
// scalar within x's rank.
#include "ops/CumSum.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status cumSumShape(ShapeContext& ctx) {
  CumSumParams p;
  TESSERA_RETURN_IF_ERROR(CumSumParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'x' is missing");
  if (!isFloat(x->dtype()) && !isInteger(x->dtype()))
    return ctx.error("input " + x->describe() + " must be a numeric tensor");
  if (x->rank() == 0) return ctx.error("input " + x->describe() + " must have at least one dimension");
  int64_t axis = 0;
  TESSERA_RETURN_IF_ERROR(CumSumParams::axis(ctx.node, ctx.input(1), x->rank(), &axis));
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(CumSum, cumSumShape);

}  // namespace tessera
