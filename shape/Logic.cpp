// And Or Xor (two bool inputs, broadcast) and Not (one bool input): bool output.
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

Status requireBool(const ShapeContext& ctx, size_t i) {
  const Tensor* t = ctx.input(i);
  if (!t) return ctx.error("input " + std::to_string(i) + " is missing");
  if (t->dtype() != DataType::kBool)
    return ctx.error("input " + inputName(ctx, i) + " is " + dataTypeName(t->dtype()) + "; it must be bool");
  return Status::ok();
}

Status logicShape(ShapeContext& ctx) {
  if (ctx.inputCount() != 2) return ctx.error("needs exactly 2 inputs, got " + std::to_string(ctx.inputCount()));
  TESSERA_RETURN_IF_ERROR(requireBool(ctx, 0));
  TESSERA_RETURN_IF_ERROR(requireBool(ctx, 1));
  Shape shape;
  TESSERA_RETURN_IF_ERROR(broadcastInputShapes(ctx, 0, 2, &shape));
  ctx.output(0) = Tensor(shape, DataType::kBool);
  return Status::ok();
}

Status notShape(ShapeContext& ctx) {
  TESSERA_RETURN_IF_ERROR(requireBool(ctx, 0));
  ctx.output(0) = Tensor(ctx.input(0)->shape(), DataType::kBool);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(And, logicShape);
TESSERA_REGISTER_SHAPE(Or, logicShape);
TESSERA_REGISTER_SHAPE(Xor, logicShape);
TESSERA_REGISTER_SHAPE(Not, notShape);

}  // namespace tessera
