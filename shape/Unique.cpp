// Unique: Y in the input's dtype, indices, inverse_indices and counts in int64; their lengths
// come from the values (ShapeContext::shapesFromValues).
#include "ops/Unique.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status uniqueShape(ShapeContext& ctx) {
  UniqueParams p;
  TESSERA_RETURN_IF_ERROR(UniqueParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is missing");
  if (x->dtype() == DataType::kString) return ctx.error("input " + x->describe() + " must be numeric or bool, not string");
  OptionalAxisGeometry g;
  TESSERA_RETURN_IF_ERROR(OptionalAxisGeometry::make(ctx.node, p.hasAxis, p.axis, x->shape(), &g));
  ctx.output(0) = Tensor(Shape{}, x->dtype());
  for (size_t i = 1; i < 4; ++i) ctx.output(i) = Tensor(Shape{}, DataType::kI64);
  ctx.shapesFromValues = true;
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Unique, uniqueShape);

}  // namespace tessera
