// ScatterElements and Scatter (opset 9-10, its former name): data's shape and dtype; indices
// and updates share one shape of data's rank, no larger than data off the axis.
#include "ops/Scatter.hpp"
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
  if (indices->dtype() != DataType::kI64 && indices->dtype() != DataType::kI32)
    return ctx.error("indices " + indices->describe() + " must be int32 or int64");
  if (updates->dtype() != data->dtype())
    return ctx.error("updates " + updates->describe() + " must have the dtype of data " + data->describe());
  if (data->rank() < 1 || indices->rank() != data->rank())
    return ctx.error("indices " + indices->describe() + " must have the rank of data " + data->describe() +
                     " (at least 1)");
  if (updates->shape() != indices->shape())
    return ctx.error("updates " + updates->describe() + " must have the shape of indices " + indices->describe());
  int64_t axis = 0;
  if (!normalizeAxis(p.axis, data->rank(), &axis))
    return ctx.error("axis " + std::to_string(p.axis) + " is out of range for data " + data->describe());
  for (int d = 0; d < data->rank(); ++d) {
    if (d != axis && indices->dim(d) > data->dim(d))
      return ctx.error("indices " + indices->describe() + " is larger than data " + data->describe() +
                       " on axis " + std::to_string(d));
  }
  ctx.output(0) = Tensor(data->shape(), data->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ScatterElements, scatterElementsShape);
TESSERA_REGISTER_SHAPE(Scatter, scatterElementsShape);

}  // namespace tessera
