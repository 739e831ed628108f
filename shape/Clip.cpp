// Clip: the input's shape and dtype; bound inputs (opset 11+) must be single elements of
// the input's type.
#include "ops/Clip.hpp"
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

Status clipShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  ClipParams p;
  TESSERA_RETURN_IF_ERROR(ClipParams::parse(ctx.node, &p));
  if (x->dtype() == DataType::kString || x->dtype() == DataType::kBool) {
    return ctx.error(std::string("input ") + inputName(ctx, 0) + " is " +
                     dataTypeName(x->dtype()) + "; Clip needs a numeric type");
  }
  for (size_t i = 1; i < ctx.inputCount() && i < 3; ++i) {
    const Tensor* bound = ctx.input(i);
    if (!bound) continue;
    const char* which = i == 1 ? "min" : "max";
    if (bound->elementCount() != 1) {
      return ctx.error(std::string(which) + " " + inputName(ctx, i) + " has shape " +
                       shapeToString(bound->shape()) + "; it must be a scalar");
    }
    if (bound->dtype() != x->dtype()) {
      return ctx.error(std::string(which) + " " + inputName(ctx, i) + " is " +
                       dataTypeName(bound->dtype()) + " but the input is " +
                       dataTypeName(x->dtype()));
    }
  }
  if (ctx.inputCount() > 3) return ctx.error("takes at most 3 inputs");
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Clip, clipShape);

}  // namespace tessera
