// Pad: each output extent is input + pad begin + pad end; the pads must be known when
// planning (attribute, constant input, or folded from constants).
#include "ops/Pad.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status padShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'data' is required");
  PadParams p;
  TESSERA_RETURN_IF_ERROR(PadParams::parse(ctx.node, &p));
  if (const Tensor* v = ctx.input(2)) {
    if (v->dtype() != x->dtype())
      return ctx.error(std::string("'constant_value' is ") + dataTypeName(v->dtype()) + " but 'data' is " +
                       dataTypeName(x->dtype()));
    if (v->elementCount() > 1) return ctx.error("'constant_value' must be a scalar or hold one value");
  }
  std::vector<int64_t> begins, ends;
  Shape y;
  Status st = resolvePads(p, x->shape(), ctx.input(1), &begins, &ends, &y);
  if (!st.isOk()) return ctx.error(st.message());
  ctx.output(0) = Tensor(y, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Pad, padShape);

}  // namespace tessera
