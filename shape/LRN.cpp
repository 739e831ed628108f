// LRN: y has x's shape (x: [N, C, spatial...]).
#include "ops/LRN.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status lrnShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is required");
  LRNParams p;
  TESSERA_RETURN_IF_ERROR(LRNParams::parse(ctx.node, &p));
  if (x->rank() < 2) return ctx.error("input 'X' must have rank >= 2 but has shape " + shapeToString(x->shape()));
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(LRN, lrnShape);

}  // namespace tessera
