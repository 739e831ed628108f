// DFT: the input's shape with the transformed dim replaced by its bin count and the last dim
// 2 (ops/Dft.hpp), in the input's float dtype.
#include "ops/Dft.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status dftShape(ShapeContext& ctx) {
  DftParams p;
  TESSERA_RETURN_IF_ERROR(DftParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 (the signal) is missing");
  if (!isFloat(x->dtype())) return ctx.error("the signal " + x->describe() + " must be a float tensor");
  DftGeometry g;
  TESSERA_RETURN_IF_ERROR(resolveDft(ctx.node, p, x->shape(), ctx.input(1), ctx.input(2), &g));
  ctx.output(0) = Tensor(g.output, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(DFT, dftShape);

}  // namespace tessera
