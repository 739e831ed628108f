// NonZero: the indices of the non-zero elements, int64 [rank, count]. The count is known only
// from the values, so the CPU kernel allocates the output (ShapeContext::shapesFromValues).
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status nonZeroShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is missing");
  if (x->dtype() == DataType::kString) return ctx.error("input 'X' must be numeric or bool, not string");
  ctx.output(0) = Tensor(Shape{}, DataType::kI64);
  ctx.shapesFromValues = true;
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(NonZero, nonZeroShape);

}  // namespace tessera
