// Mod: the broadcast shape of A and B, in their (shared) numeric dtype; float needs fmod = 1.
#include "ops/Mod.hpp"
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

Status modShape(ShapeContext& ctx) {
  ModParams p;
  TESSERA_RETURN_IF_ERROR(ModParams::parse(ctx.node, &p));
  if (ctx.inputCount() != 2) return ctx.error("needs exactly 2 inputs, got " + std::to_string(ctx.inputCount()));
  Shape shape;
  TESSERA_RETURN_IF_ERROR(broadcastInputShapes(ctx, 0, 2, &shape));
  TESSERA_RETURN_IF_ERROR(requireSameDataType(ctx, 0, 2));
  const DataType t = ctx.input(0)->dtype();
  if (!isFloat(t) && !isInteger(t))
    return ctx.error("input " + ctx.input(0)->describe() + " must be an integer or float tensor");
  if (isFloat(t) && !p.fmod)
    return ctx.error("float inputs (" + std::string(dataTypeName(t)) +
                     ") need fmod = 1; fmod = 0 is defined for integers only");
  ctx.output(0) = Tensor(shape, t);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Mod, modShape);

}  // namespace tessera
