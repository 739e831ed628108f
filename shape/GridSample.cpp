// GridSample: X [N, C, H, W] and grid [N, Ho, Wo, 2] give Y [N, C, Ho, Wo] of X's type.
#include "ops/GridSample.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status gridSampleShape(ShapeContext& ctx) {
  GridSampleParams p;
  TESSERA_RETURN_IF_ERROR(GridSampleParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  const Tensor* grid = ctx.input(1);
  if (!x) return ctx.error("input 'X' is missing");
  if (!grid) return ctx.error("input 'grid' is missing");
  if (x->rank() != 4) return ctx.error("input X " + x->describe() + " must have rank 4 [N, C, H, W]");
  if (grid->rank() != 4)
    return ctx.error("input grid " + grid->describe() + " must have rank 4 [N, H_out, W_out, 2]");
  if (grid->dim(3) != 2)
    return ctx.error("input grid " + grid->describe() + " must have 2 values (x, y) in its last dimension");
  if (grid->dim(0) != x->dim(0))
    return ctx.error("input grid " + grid->describe() + " has batch " + std::to_string(grid->dim(0)) +
                     " but X " + x->describe() + " has batch " + std::to_string(x->dim(0)));
  if (!isFloat(x->dtype()) || !isFloat(grid->dtype()))
    return ctx.error("inputs X " + x->describe() + " and grid " + grid->describe() + " must be floating point");
  if ((x->dim(2) == 0 || x->dim(3) == 0) && elementCount({x->dim(0), x->dim(1), grid->dim(1), grid->dim(2)}) > 0)
    return ctx.error("input X " + x->describe() + " has no pixels to sample from");
  ctx.output(0) = Tensor({x->dim(0), x->dim(1), grid->dim(1), grid->dim(2)}, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(GridSample, gridSampleShape, 16);

}  // namespace tessera
