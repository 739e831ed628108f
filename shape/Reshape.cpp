// Reshape: the output shape comes from the constant 'shape' input (or attribute).
#include "ops/ConstantIntInput.hpp"
#include "ops/Reshape.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status reshapeShape(ShapeContext& ctx) {
  ReshapeParams p;
  TESSERA_RETURN_IF_ERROR(ReshapeParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  std::vector<int64_t> requested = p.shape;
  if (ctx.node.opset >= 5)
    TESSERA_RETURN_IF_ERROR(constantIntInput(ctx.node, ctx.input(1), "shape", &requested));
  Shape out;
  TESSERA_RETURN_IF_ERROR(resolveReshape(ctx.node, p, x->shape(), requested, &out));
  ctx.output(0) = Tensor(out, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Reshape, reshapeShape);

}  // namespace tessera
