// Equal Less Greater LessOrEqual GreaterOrEqual: broadcast shape, bool output.
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

Status compareShape(ShapeContext& ctx) {
  if (ctx.inputCount() != 2) {
    return ctx.error("needs exactly 2 inputs, got " + std::to_string(ctx.inputCount()));
  }
  Shape shape;
  TESSERA_RETURN_IF_ERROR(broadcastInputShapes(ctx, 0, 2, &shape));
  TESSERA_RETURN_IF_ERROR(requireSameDataType(ctx, 0, 2));
  if (ctx.input(0)->dtype() == DataType::kString) {
    return ctx.error("string tensors are not supported");
  }
  ctx.output(0) = Tensor(shape, DataType::kBool);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Equal, compareShape);
TESSERA_REGISTER_SHAPE(Less, compareShape);
TESSERA_REGISTER_SHAPE(Greater, compareShape);
TESSERA_REGISTER_SHAPE(LessOrEqual, compareShape);
TESSERA_REGISTER_SHAPE(GreaterOrEqual, compareShape);

}  // namespace tessera
