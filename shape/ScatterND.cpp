// ScatterND: data's shape and dtype; indices [..., k] with k <= rank of data, updates of shape
// indices.shape[:-1] + data.shape[k:].
#include "ops/Scatter.hpp"
#include "ops/Window.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status scatterNDShape(ShapeContext& ctx) {
  ScatterNDParams p;
  TESSERA_RETURN_IF_ERROR(ScatterNDParams::parse(ctx.node, &p));
  const Tensor* data = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  const Tensor* updates = ctx.input(2);
  if (!data || !indices || !updates) return ctx.error("needs inputs 'data', 'indices' and 'updates'");
  if (indices->dtype() != DataType::kI64 && indices->dtype() != DataType::kI32)
    return ctx.error("indices " + indices->describe() + " must be int64 (or int32)");
  if (updates->dtype() != data->dtype())
    return ctx.error("updates " + updates->describe() + " must have the dtype of data " + data->describe());
  if (data->rank() < 1 || indices->rank() < 1)
    return ctx.error("data " + data->describe() + " and indices " + indices->describe() + " need rank 1 or more");
  const int64_t k = indices->dim(-1);
  if (k > data->rank())
    return ctx.error("indices " + indices->describe() + " index " + std::to_string(k) +
                     " dimensions, more than data " + data->describe() + " has");
  Shape want(indices->shape().begin(), indices->shape().end() - 1);
  want.insert(want.end(), data->shape().begin() + k, data->shape().end());
  if (updates->shape() != want)
    return ctx.error("updates " + updates->describe() + " must have shape " + joinInts(want) +
                     " (indices.shape[:-1] + data.shape[k:])");
  ctx.output(0) = Tensor(data->shape(), data->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ScatterND, scatterNDShape);

}  // namespace tessera
