// SqueezeExcite (ops/SqueezeExcite.hpp): Y has X's shape; every other input must match the
// channels of X and the hidden width C1 that W1 gives (pooled, B1 and B2 may be omitted).
#include "ops/SqueezeExcite.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status squeezeExciteShape(ShapeContext& ctx) {
  using P = SqueezeExciteParams;
  SqueezeExciteParams params;
  TESSERA_RETURN_IF_ERROR(P::parse(ctx.node, &params));
  const Tensor* x = ctx.input(P::kX);
  const Tensor* w1 = ctx.input(P::kW1);
  if (!x || !w1 || !ctx.input(P::kW2)) return ctx.error("inputs 'X', 'W1' and 'W2' are required");
  if (x->rank() != 4) return ctx.error("input 'X' must be [N, C, H, W] but has shape " + shapeToString(x->shape()));
  if (x->dtype() != DataType::kF32) return ctx.error("input 'X' must be float32");
  const int64_t N = x->dim(0), C = x->dim(1);
  if (w1->rank() != 4) return ctx.error("input 'W1' must be [C1, C, 1, 1] but has shape " + shapeToString(w1->shape()));
  const int64_t C1 = w1->dim(0);
  const struct { size_t input; const char* name; Shape want; } expected[] = {
      {P::kPooled, "pooled", {N, C, 1, 1}}, {P::kW1, "W1", {C1, C, 1, 1}}, {P::kB1, "B1", {C1}},
      {P::kW2, "W2", {C, C1, 1, 1}},        {P::kB2, "B2", {C}}};
  for (const auto& e : expected) {
    const Tensor* t = ctx.input(e.input);
    if (!t) continue;  // pooled, B1, B2 (the others were checked above)
    if (t->shape() != e.want)
      return ctx.error(std::string("input '") + e.name + "' has shape " + shapeToString(t->shape()) + " but must be " +
                       shapeToString(e.want) + " (X is " + shapeToString(x->shape()) + ", W1 " +
                       shapeToString(w1->shape()) + ")");
    if (t->dtype() != DataType::kF32) return ctx.error(std::string("input '") + e.name + "' must be float32");
  }
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(SqueezeExcite, squeezeExciteShape);

}  // namespace tessera
