// Cast: the input's shape in the type named by `to`.
#include "ops/Cast.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status castShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  CastParams p;
  TESSERA_RETURN_IF_ERROR(CastParams::parse(ctx.node, &p));
  if (x->dtype() == DataType::kString || p.to == DataType::kString) {
    return Status::unsupported(ctx.node.label() + ": string tensors are not supported");
  }
  ctx.output(0) = Tensor(x->shape(), p.to);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Cast, castShape);

}  // namespace tessera
