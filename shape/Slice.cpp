// Slice: the output extent on each axis is the number of elements the window visits.
#include "ops/Slice.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status sliceShape(ShapeContext& ctx) {
  SliceParams p;
  TESSERA_RETURN_IF_ERROR(SliceParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  SliceWindow w;
  TESSERA_RETURN_IF_ERROR(resolveSlice(ctx.node, p, x->shape(),
                                       {ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4)},
                                       &w));
  ctx.output(0) = Tensor(w.counts, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Slice, sliceShape);

}  // namespace tessera
