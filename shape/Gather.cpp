// Gather: data[:axis] + indices.shape + data[axis+1:], the dtype of data.
#include "ops/Gather.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status gatherShape(ShapeContext& ctx) {
  GatherParams p;
  TESSERA_RETURN_IF_ERROR(GatherParams::parse(ctx.node, &p));
  const Tensor* data = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  if (!data || !indices) return ctx.error("needs inputs 'data' and 'indices'");
  if (indices->dtype() != DataType::kI64 && indices->dtype() != DataType::kI32)
    return ctx.error("indices " + indices->describe() + " must be int32 or int64");
  int64_t axis = 0;
  if (!normalizeAxis(p.axis, data->rank(), &axis))
    return ctx.error("axis " + std::to_string(p.axis) + " is out of range for data " +
                     data->describe());
  Shape out(data->shape().begin(), data->shape().begin() + axis);
  out.insert(out.end(), indices->shape().begin(), indices->shape().end());
  out.insert(out.end(), data->shape().begin() + axis + 1, data->shape().end());
  ctx.output(0) = Tensor(out, data->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Gather, gatherShape);

}  // namespace tessera
