// Range: the output length depends on the values of start, limit and delta, so they must
// be known when the graph is planned.
#include "ops/Range.hpp"
#include "shape/BroadcastShape.hpp"
#include "tessera/ValueNeeds.hpp"

namespace tessera {
namespace {

Status rangeShape(ShapeContext& ctx) {
  if (ctx.inputCount() != 3) {
    return ctx.error("needs 3 inputs (start, limit, delta), got " +
                     std::to_string(ctx.inputCount()));
  }
  const char* names[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    const Tensor* t = ctx.input(i);
    if (!t) return ctx.error(std::string(names[i]) + " is missing");
    if (t->elementCount() != 1) {
      return ctx.error(std::string(names[i]) + " " + inputName(ctx, i) + " has shape " +
                       shapeToString(t->shape()) + "; it must be a scalar");
    }
    if (t->dtype() != ctx.input(0)->dtype()) {
      return ctx.error(std::string(names[i]) + " " + inputName(ctx, i) + " is " +
                       dataTypeName(t->dtype()) + " but start is " +
                       dataTypeName(ctx.input(0)->dtype()));
    }
    if (!t->data()) {
      noteValueNeeded(t);
      // Unsupported rather than invalid: the model is fine, the engine plans shapes up front.
      return Status::unsupported(ctx.node.label() + ": the output length depends on the value "
                                 "of " + std::string(names[i]) + " " + inputName(ctx, i) +
                                 ", which is not known when the graph is planned "
                                 "(data-dependent shapes are not supported)");
    }
  }
  int64_t count = 0;
  const Status st = rangeElementCount(*ctx.input(0), *ctx.input(1), *ctx.input(2), &count);
  if (!st.isOk()) return st.withContext(ctx.node.label());
  ctx.output(0) = Tensor(Shape{count}, ctx.input(0)->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Range, rangeShape);

}  // namespace tessera
