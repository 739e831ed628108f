// InstanceNormalization: y has x's shape; scale and B are [C].
#include "ops/InstanceNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status instanceNormShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'input' is required");
  if (x->rank() < 3) return ctx.error("input 'input' must have rank >= 3 but has shape " + shapeToString(x->shape()));
  const int64_t c = x->dim(1);
  static const char* names[] = {"input", "scale", "B"};
  for (size_t i = 1; i < 3; ++i) {
    const Tensor* t = ctx.input(i);
    if (!t) return ctx.error(std::string("input '") + names[i] + "' is required");
    if (t->rank() != 1 || t->dim(0) != c)
      return ctx.error(std::string("input '") + names[i] + "' has shape " + shapeToString(t->shape()) +
                       " but must be [" + std::to_string(c) + "] (the channels of the input)");
  }
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(InstanceNormalization, instanceNormShape);

}  // namespace tessera
