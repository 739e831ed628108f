// DepthToSpace: [N, C, H, W] -> [N, C/b^2, H*b, W*b].
// SpaceToDepth: [N, C, H, W] -> [N, C*b^2, H/b, W/b].
#include "ops/DepthToSpace.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status depthToSpaceShape(ShapeContext& ctx) {
  DepthToSpaceParams p;
  TESSERA_RETURN_IF_ERROR(DepthToSpaceParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  if (x->rank() != 4) return ctx.error("input " + x->describe() + " must have rank 4");
  const int64_t b = p.blockSize;
  int64_t b2 = 0, h = 0, w = 0;
  if (!checkedMul(b, b, &b2) || !checkedMul(x->dim(2), b, &h) || !checkedMul(x->dim(3), b, &w))
    return ctx.error("blocksize " + std::to_string(b) + " makes the output of input " + x->describe() +
                     " too large");
  if (x->dim(1) % b2 != 0)
    return ctx.error("input " + x->describe() + " has channels not divisible by blocksize^2 = " +
                     std::to_string(b2));
  ctx.output(0) = Tensor({x->dim(0), x->dim(1) / b2, h, w}, x->dtype());
  return Status::ok();
}

Status spaceToDepthShape(ShapeContext& ctx) {
  DepthToSpaceParams p;
  TESSERA_RETURN_IF_ERROR(DepthToSpaceParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  if (x->rank() != 4) return ctx.error("input " + x->describe() + " must have rank 4");
  const int64_t b = p.blockSize;
  if (x->dim(2) % b != 0 || x->dim(3) % b != 0)
    return ctx.error("input " + x->describe() + " has H or W not divisible by blocksize " +
                     std::to_string(b));
  int64_t b2 = 0, c = 0;
  if (!checkedMul(b, b, &b2) || !checkedMul(x->dim(1), b2, &c))
    return ctx.error("blocksize " + std::to_string(b) + " makes the output of input " + x->describe() +
                     " too large");
  ctx.output(0) = Tensor({x->dim(0), c, x->dim(2) / b, x->dim(3) / b}, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(DepthToSpace, depthToSpaceShape);
TESSERA_REGISTER_SHAPE(SpaceToDepth, spaceToDepthShape);

}  // namespace tessera
