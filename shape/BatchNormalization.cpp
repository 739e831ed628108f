// BatchNormalization (inference): y has x's shape; scale, B, mean and var are [C].
#include "ops/BatchNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status batchNormShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is required");
  BatchNormalizationParams p;
  TESSERA_RETURN_IF_ERROR(BatchNormalizationParams::parse(ctx.node, &p));
  if (x->rank() < 2) return ctx.error("input 'X' must have rank >= 2 but has shape " + shapeToString(x->shape()));
  const int64_t c = x->dim(1);
  static const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i) {
    const Tensor* t = ctx.input(i);
    if (!t) return ctx.error(std::string("input '") + names[i] + "' is required");
    if (t->rank() != 1 || t->dim(0) != c)
      return ctx.error(std::string("input '") + names[i] + "' has shape " + shapeToString(t->shape()) +
                       " but must be [" + std::to_string(c) + "] (the channels of X)");
  }
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  for (size_t i = 1; i < ctx.outputs.size(); ++i)  // training-mode outputs: rejected by parse
    ctx.output(i) = Tensor({c}, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(BatchNormalization, batchNormShape);

}  // namespace tessera
