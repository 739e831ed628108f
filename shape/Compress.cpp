// Compress: the input's dtype; the axis' extent (or the flattened length) becomes the count of
// true condition entries. A constant condition gives the shape now; otherwise it comes from
// the values at run time (ShapeContext::shapesFromValues).
#include "ops/Compress.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status compressShape(ShapeContext& ctx) {
  CompressParams p;
  TESSERA_RETURN_IF_ERROR(CompressParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  const Tensor* cond = ctx.input(1);
  if (!x || !cond) return ctx.error("needs the input (0) and the condition (1)");
  if (x->dtype() == DataType::kString) return ctx.error("input " + x->describe() + " must not be a string tensor");
  if (cond->dtype() != DataType::kBool || cond->rank() != 1)
    return ctx.error("condition " + cond->describe() + " must be a 1-D bool tensor");
  OptionalAxisGeometry g;
  TESSERA_RETURN_IF_ERROR(OptionalAxisGeometry::make(ctx.node, p.hasAxis, p.axis, x->shape(), &g));
  if (cond->dim(0) > g.extent)
    return ctx.error("condition " + cond->describe() + " is longer than the " +
                     (p.hasAxis ? "extent " + std::to_string(g.extent) + " of axis " + std::to_string(p.axis)
                                : "flattened input's " + std::to_string(g.extent) + " elements"));
  if (cond->data()) {
    int64_t kept = 0;
    for (int64_t i = 0; i < cond->dim(0); ++i) kept += cond->data<bool>()[i];
    ctx.output(0) = Tensor(g.outputShape(p.hasAxis, x->shape(), kept), x->dtype());
    return Status::ok();
  }
  ctx.output(0) = Tensor(Shape{}, x->dtype());
  ctx.shapesFromValues = true;
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Compress, compressShape);

}  // namespace tessera
