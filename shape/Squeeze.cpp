// Squeeze: drops the listed extent-1 dimensions, or every extent-1 dimension when no axes
// are given.
#include "ops/Squeeze.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status squeezeShape(ShapeContext& ctx) {
  SqueezeParams p;
  TESSERA_RETURN_IF_ERROR(SqueezeParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  std::vector<int64_t> axes;
  bool present = false;
  TESSERA_RETURN_IF_ERROR(squeezeAxes(ctx.node, p, ctx.input(1), &axes, &present));
  const int64_t rank = x->rank();
  std::vector<bool> drop(rank, false);
  // No axes (or an empty list) squeezes every extent-1 dimension.
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) drop[d] = x->shape()[d] == 1;
  }
  for (int64_t a : axes) {
    int64_t axis = 0;
    if (!normalizeAxis(a, rank, &axis))
      return ctx.error("axis " + std::to_string(a) + " is out of range for input " +
                       x->describe());
    if (x->shape()[axis] != 1)
      return ctx.error("cannot squeeze axis " + std::to_string(a) + " of input " +
                       x->describe() + ": its extent is not 1");
    drop[axis] = true;
  }
  Shape out;
  for (int64_t d = 0; d < rank; ++d)
    if (!drop[d]) out.push_back(x->shape()[d]);
  ctx.output(0) = Tensor(out, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Squeeze, squeezeShape);

}  // namespace tessera
