// PRelu(X, slope): X's shape and dtype; slope must broadcast to X (one direction only).
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

Status preluShape(ShapeContext& ctx) {
  if (ctx.inputCount() != 2) {
    return ctx.error("needs 2 inputs (X, slope), got " + std::to_string(ctx.inputCount()));
  }
  Shape shape;
  TESSERA_RETURN_IF_ERROR(broadcastInputShapes(ctx, 0, 2, &shape));
  const Tensor& x = *ctx.input(0);
  if (shape != x.shape()) {
    return ctx.error("slope " + inputName(ctx, 1) + " of shape " +
                     shapeToString(ctx.input(1)->shape()) + " does not broadcast to X's shape " +
                     shapeToString(x.shape()));
  }
  TESSERA_RETURN_IF_ERROR(requireSameDataType(ctx, 0, 2));
  if (x.dtype() == DataType::kString || x.dtype() == DataType::kBool) {
    return ctx.error(std::string("input is ") + dataTypeName(x.dtype()) +
                     "; PRelu needs a numeric type");
  }
  ctx.output(0) = Tensor(x.shape(), x.dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(PRelu, preluShape);

}  // namespace tessera
