// Where(condition, X, Y): the broadcast shape of all three; X's dtype.
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

Status whereShape(ShapeContext& ctx) {
  if (ctx.inputCount() != 3) {
    return ctx.error("needs 3 inputs (condition, X, Y), got " + std::to_string(ctx.inputCount()));
  }
  Shape shape;
  TESSERA_RETURN_IF_ERROR(broadcastInputShapes(ctx, 0, 3, &shape));
  if (ctx.input(0)->dtype() != DataType::kBool) {
    return ctx.error("condition " + inputName(ctx, 0) + " is " +
                     dataTypeName(ctx.input(0)->dtype()) + "; it must be bool");
  }
  TESSERA_RETURN_IF_ERROR(requireSameDataType(ctx, 1, 2));
  if (ctx.input(1)->dtype() == DataType::kString) {
    return ctx.error("string tensors are not supported");
  }
  ctx.output(0) = Tensor(shape, ctx.input(1)->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Where, whereShape);

}  // namespace tessera
