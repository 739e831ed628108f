// Add Sub Mul Div Pow (two inputs) and Max Min Sum Mean (one or more): the broadcast shape
// of the inputs; the dtype of input 0 (for Pow, the base's type whatever the exponent's).
#include "ops/Binary.hpp"
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

Status binaryShape(ShapeContext& ctx) {
  BinaryParams p;
  TESSERA_RETURN_IF_ERROR(BinaryParams::parse(ctx.node, &p));
  const size_t n = ctx.inputCount();
  if (BinaryParams::isVariadic(p.kind)) {
    if (n < 1) return ctx.error("needs at least one input");
  } else if (n != 2) {
    return ctx.error("needs exactly 2 inputs, got " + std::to_string(n));
  }
  Shape shape;
  TESSERA_RETURN_IF_ERROR(broadcastInputShapes(ctx, 0, n, &shape));
  const DataType dtype = ctx.input(0)->dtype();
  if (p.kind != BinaryKind::kPow) TESSERA_RETURN_IF_ERROR(requireSameDataType(ctx, 0, n));
  if (dtype == DataType::kString || dtype == DataType::kBool) {
    return ctx.error(std::string("input ") + inputName(ctx, 0) + " is " + dataTypeName(dtype) +
                     "; arithmetic needs a numeric type");
  }
  ctx.output(0) = Tensor(shape, dtype);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Add, binaryShape);
TESSERA_REGISTER_SHAPE(Sub, binaryShape);
TESSERA_REGISTER_SHAPE(Mul, binaryShape);
TESSERA_REGISTER_SHAPE(Div, binaryShape);
TESSERA_REGISTER_SHAPE(Pow, binaryShape);
TESSERA_REGISTER_SHAPE(Max, binaryShape);
TESSERA_REGISTER_SHAPE(Min, binaryShape);
TESSERA_REGISTER_SHAPE(Sum, binaryShape);
TESSERA_REGISTER_SHAPE(Mean, binaryShape);

}  // namespace tessera
