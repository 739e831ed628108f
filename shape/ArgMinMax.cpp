// ArgMax / ArgMin: the axis becomes 1 (keepdims) or disappears; the output is int64.
#include "ops/ArgMinMax.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status argMinMaxShape(ShapeContext& ctx) {
  ArgMinMaxParams p;
  TESSERA_RETURN_IF_ERROR(ArgMinMaxParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  int64_t axis = 0;
  if (!normalizeAxis(p.axis, x->rank(), &axis))
    return ctx.error("axis " + std::to_string(p.axis) + " is out of range for input " +
                     x->describe());
  if (x->dim(static_cast<int>(axis)) == 0)
    return ctx.error("cannot take the arg-extreme of an empty axis of " + x->describe());
  Shape out = x->shape();
  if (p.keepDims) out[axis] = 1;
  else out.erase(out.begin() + axis);
  ctx.output(0) = Tensor(out, DataType::kI64);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ArgMax, argMinMaxShape);
TESSERA_REGISTER_SHAPE(ArgMin, argMinMaxShape);

}  // namespace tessera
