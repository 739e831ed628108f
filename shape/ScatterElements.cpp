// ScatterElements and Scatter (opset 9-10, its former name): data's shape and dtype; indices
// and updates share one shape of data's rank, no larger than data off the axis.
#include "ops/Scatter.hpp"
#include "shape/ElementsIndices.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status scatterElementsShape(ShapeContext& ctx) {
  ScatterElementsParams p;
  TESSERA_RETURN_IF_ERROR(ScatterElementsParams::parse(ctx.node, &p));
  const Tensor* data = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  const Tensor* updates = ctx.input(2);
  if (!data || !indices || !updates) return ctx.error("needs inputs 'data', 'indices' and 'updates'");
  if (updates->dtype() != data->dtype())
    return ctx.error("updates " + updates->describe() + " must have the dtype of data " + data->describe());
  if (updates->shape() != indices->shape())
    return ctx.error("updates " + updates->describe() + " must have the shape of indices " + indices->describe());
  TESSERA_RETURN_IF_ERROR(checkElementsIndices(ctx, *data, *indices, p.axis));
  ctx.output(0) = Tensor(data->shape(), data->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ScatterElements, scatterElementsShape);
TESSERA_REGISTER_SHAPE(Scatter, scatterElementsShape);

}  // namespace tessera
