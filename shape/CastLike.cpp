// CastLike: input 0's shape in input 1's (target_type's) dtype; only that dtype is read.
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status castLikeShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  const Tensor* like = ctx.input(1);
  if (!x || !like) return ctx.error("needs the input (0) and the target_type tensor (1)");
  if (x->dtype() == DataType::kString || like->dtype() == DataType::kString)
    return Status::unsupported(ctx.node.label() + ": string tensors are not supported");
  if (like->dtype() == DataType::kUnknown)
    return ctx.error("target_type " + like->describe() + " has no known data type");
  ctx.output(0) = Tensor(x->shape(), like->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(CastLike, castLikeShape);

}  // namespace tessera
