// Concat: every input has the same rank and dtype, and equal extents except on the axis,
// where the output extent is their sum.
#include "ops/Concat.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status concatShape(ShapeContext& ctx) {
  ConcatParams p;
  TESSERA_RETURN_IF_ERROR(ConcatParams::parse(ctx.node, &p));
  if (ctx.inputCount() == 0 || !ctx.input(0)) return ctx.error("needs at least one input");
  const Tensor& first = *ctx.input(0);
  int64_t axis = 0;
  if (!normalizeAxis(p.axis, first.rank(), &axis))
    return ctx.error("axis " + std::to_string(p.axis) + " is out of range for input " +
                     first.describe());
  Shape out = first.shape();
  out[axis] = 0;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    const Tensor* t = ctx.input(i);
    if (!t) return ctx.error("input " + std::to_string(i) + " is missing");
    if (t->dtype() != first.dtype())
      return ctx.error("input " + t->describe() + " has a different dtype than " +
                       first.describe());
    if (t->rank() != first.rank())
      return ctx.error("input " + t->describe() + " has a different rank than " +
                       first.describe());
    for (int d = 0; d < t->rank(); ++d) {
      if (d != axis && t->dim(d) != first.dim(d))
        return ctx.error("input " + t->describe() + " differs from " + first.describe() +
                         " on dimension " + std::to_string(d) + " (not the concat axis)");
    }
    if (!checkedAdd(out[axis], t->dim(static_cast<int>(axis)), &out[axis]))
      return ctx.error("the inputs' extents along the axis add up past int64");
  }
  ctx.output(0) = Tensor(out, first.dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Concat, concatShape);

}  // namespace tessera
