// RoiAlign: [num_rois, C, output_height, output_width] in X's dtype.
#include "ops/RoiAlign.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status roiAlignShape(ShapeContext& ctx) {
  RoiAlignParams p;
  TESSERA_RETURN_IF_ERROR(RoiAlignParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  const Tensor* rois = ctx.input(1);
  const Tensor* batch = ctx.input(2);
  if (!x || !rois || !batch) return ctx.error("needs inputs 'X', 'rois' and 'batch_indices'");
  if (x->rank() != 4) return ctx.error("X " + x->describe() + " must be [N, C, H, W]");
  if (rois->dtype() != x->dtype()) return ctx.error("rois " + rois->describe() + " must have X's dtype");
  if (rois->rank() != 2 || rois->dim(1) != 4) return ctx.error("rois " + rois->describe() + " must be [num_rois, 4]");
  if (batch->dtype() != DataType::kI64 && batch->dtype() != DataType::kI32)
    return ctx.error("batch_indices " + batch->describe() + " must be int64");
  if (batch->rank() != 1 || batch->dim(0) != rois->dim(0))
    return ctx.error("batch_indices " + batch->describe() + " must hold one index per roi of " + rois->describe());
  if ((x->dim(2) == 0 || x->dim(3) == 0) && rois->dim(0) > 0)
    return ctx.error("X " + x->describe() + " has no pixels to sample");
  ctx.output(0) = Tensor({rois->dim(0), x->dim(1), p.outputHeight, p.outputWidth}, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(RoiAlign, roiAlignShape);

}  // namespace tessera
