// ConstantOfShape: the output shape is the value of input 0, so that input must be known
// at resize time (an initializer, or computed from constants / input shapes).
#include "ops/ConstantOfShape.hpp"
#include "shape/BroadcastShape.hpp"
#include "tessera/ValueNeeds.hpp"

namespace tessera {
namespace {

Status constantOfShapeShape(ShapeContext& ctx) {
  ConstantOfShapeParams p;
  TESSERA_RETURN_IF_ERROR(ConstantOfShapeParams::parse(ctx.node, &p));
  const Tensor* s = ctx.input(0);
  if (!s) return ctx.error("input 0 (the shape) is missing");
  if (s->dtype() != DataType::kI64 || s->rank() != 1) {
    return ctx.error("shape " + inputName(ctx, 0) + " is " + dataTypeName(s->dtype()) + " " +
                     shapeToString(s->shape()) + "; it must be a 1-D int64 tensor");
  }
  if (!s->data()) {
    noteValueNeeded(s);
    // Unsupported rather than invalid: the model is fine, the engine plans shapes up front.
    return Status::unsupported(ctx.node.label() + ": the output shape is the value of " +
                               inputName(ctx, 0) + ", which is not known when the graph is "
                               "planned (data-dependent shapes are not supported)");
  }
  Shape shape(s->data<int64_t>(), s->data<int64_t>() + s->elementCount());
  for (int64_t d : shape) {
    if (d < 0) return ctx.error("shape " + inputName(ctx, 0) + " has a negative extent");
  }
  ctx.output(0) = Tensor(shape, p.dtype);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ConstantOfShape, constantOfShapeShape);

}  // namespace tessera
