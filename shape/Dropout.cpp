// Dropout: output and mask have the input's shape; a constant training_mode must be false.
#include "ops/Dropout.hpp"
#include "shape/BroadcastShape.hpp"

namespace tessera {
namespace {

Status dropoutShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  DropoutParams p;
  TESSERA_RETURN_IF_ERROR(DropoutParams::parse(ctx.node, &p));
  const Tensor* ratio = ctx.input(1);
  if (ratio && ratio->elementCount() != 1) {
    return ctx.error("ratio " + inputName(ctx, 1) + " has shape " +
                     shapeToString(ratio->shape()) + "; it must be a scalar");
  }
  const Tensor* training = ctx.input(2);
  if (training && training->data() && training->dtype() == DataType::kBool &&
      *training->data<bool>()) {
    return Status::unsupported(ctx.node.label() + ": training mode is not supported");
  }
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  if (ctx.outputs.size() > 1) ctx.output(1) = Tensor(x->shape(), p.maskType(x->dtype()));
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Dropout, dropoutShape);

}  // namespace tessera
