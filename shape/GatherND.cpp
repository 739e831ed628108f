// GatherND: indices.shape[:-1] + data.shape[batch_dims + k:], data's dtype.
#include "ops/GatherND.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status gatherNDShape(ShapeContext& ctx) {
  GatherNDParams p;
  TESSERA_RETURN_IF_ERROR(GatherNDParams::parse(ctx.node, &p));
  const Tensor* data = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  if (!data || !indices) return ctx.error("needs inputs 'data' and 'indices'");
  if (indices->dtype() != DataType::kI64 && indices->dtype() != DataType::kI32)
    return ctx.error("indices " + indices->describe() + " must be int64 (or int32)");
  const int64_t b = p.batchDims;
  if (b >= data->rank() || b >= indices->rank())
    return ctx.error("batch_dims " + std::to_string(b) + " must be less than the ranks of data " +
                     data->describe() + " and indices " + indices->describe());
  for (int d = 0; d < b; ++d) {
    if (indices->dim(d) != data->dim(d))
      return ctx.error("indices " + indices->describe() + " and data " + data->describe() +
                       " differ on batch dimension " + std::to_string(d));
  }
  const int64_t k = indices->dim(-1);
  if (k < 1 || k > data->rank() - b)
    return ctx.error("indices " + indices->describe() + " index " + std::to_string(k) + " dimensions; data " +
                     data->describe() + " with batch_dims " + std::to_string(b) + " takes 1 to " +
                     std::to_string(data->rank() - b));
  Shape out(indices->shape().begin(), indices->shape().end() - 1);
  out.insert(out.end(), data->shape().begin() + b + k, data->shape().end());
  ctx.output(0) = Tensor(out, data->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(GatherND, gatherNDShape);

}  // namespace tessera
