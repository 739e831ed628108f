// GatherElements: the shape of indices, the dtype of data.
#include "ops/GatherElements.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status gatherElementsShape(ShapeContext& ctx) {
  GatherElementsParams p;
  TESSERA_RETURN_IF_ERROR(GatherElementsParams::parse(ctx.node, &p));
  const Tensor* data = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  if (!data || !indices) return ctx.error("needs inputs 'data' and 'indices'");
  if (indices->dtype() != DataType::kI64 && indices->dtype() != DataType::kI32)
    return ctx.error("indices " + indices->describe() + " must be int32 or int64");
  if (data->rank() < 1 || indices->rank() != data->rank())
    return ctx.error("indices " + indices->describe() + " must have the rank of data " +
                     data->describe() + " (at least 1)");
  int64_t axis = 0;
  if (!normalizeAxis(p.axis, data->rank(), &axis))
    return ctx.error("axis " + std::to_string(p.axis) + " is out of range for data " + data->describe());
  for (int d = 0; d < data->rank(); ++d) {
    if (d != axis && indices->dim(d) > data->dim(d))
      return ctx.error("indices " + indices->describe() + " is larger than data " + data->describe() +
                       " on axis " + std::to_string(d));
  }
  ctx.output(0) = Tensor(indices->shape(), data->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(GatherElements, gatherElementsShape);

}  // namespace tessera
