// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the loss is [N, d1..dk] with
// reduction "none", else a scalar, in the scores' dtype; SoftmaxCrossEntropyLoss's optional
// second output (log_prob) has the scores' shape.
#include "ops/Loss.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status lossShape(ShapeContext& ctx) {
  LossParams p;
  TESSERA_RETURN_IF_ERROR(LossParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  const Tensor* target = ctx.input(1);
  const Tensor* weight = ctx.input(2);
  if (!x || !target) return ctx.error("needs the scores (input 0) and the targets (input 1)");
  if (!isFloat(x->dtype())) return ctx.error("input 0 " + x->describe() + " must be a float tensor");
  if (x->rank() < 2) return ctx.error("input 0 " + x->describe() + " must be [N, C, ...]");
  if (target->dtype() != DataType::kI64 && target->dtype() != DataType::kI32)
    return ctx.error("targets " + target->describe() + " must be int32 or int64");
  Shape expected = x->shape();
  expected.erase(expected.begin() + 1);
  if (target->shape() != expected)
    return ctx.error("targets " + target->describe() + " must be input 0 " + x->describe() +
                     " without its class axis (1)");
  if (weight && weight->dtype() != DataType::kUnknown &&
      (weight->dtype() != x->dtype() || weight->rank() != 1 || weight->dim(0) != x->dim(1)))
    return ctx.error("weight " + weight->describe() + " must be 1-D with one value per class (" +
                     std::to_string(x->dim(1)) + ") in input 0's dtype");
  ctx.output(0) = Tensor(p.reduction == LossParams::Reduction::kNone ? expected : Shape{}, x->dtype());
  if (ctx.outputs.size() > 1) ctx.output(1) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(NegativeLogLikelihoodLoss, lossShape);
TESSERA_REGISTER_SHAPE(SoftmaxCrossEntropyLoss, lossShape);

}  // namespace tessera
