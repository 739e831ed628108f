// STFT: [batch, frames, bins, 2] in the signal's float dtype (ops/Stft.hpp).
#include "ops/Stft.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status stftShape(ShapeContext& ctx) {
  StftParams p;
  TESSERA_RETURN_IF_ERROR(StftParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 (the signal) is missing");
  if (!isFloat(x->dtype())) return ctx.error("the signal " + x->describe() + " must be a float tensor");
  StftGeometry g;
  TESSERA_RETURN_IF_ERROR(resolveStft(ctx.node, p, *x, ctx.input(1), ctx.input(2), ctx.input(3), &g));
  ctx.output(0) = Tensor(g.output, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(STFT, stftShape);

}  // namespace tessera
