// Expand: the input broadcast (numpy rules, both ways) with the constant 'shape' input.
#include "ops/ConstantIntInput.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status expandShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  std::vector<int64_t> shape;
  TESSERA_RETURN_IF_ERROR(constantIntInput(ctx.node, ctx.input(1), "shape", &shape));
  for (int64_t v : shape)
    if (v < 0) return ctx.error("'shape' has a negative extent " + std::to_string(v));
  Shape out;
  if (!broadcastShapes(x->shape(), shape, &out))
    return ctx.error("input " + x->describe() + " cannot be broadcast to " +
                     shapeToString(shape));
  ctx.output(0) = Tensor(out, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Expand, expandShape);

}  // namespace tessera
