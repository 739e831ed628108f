// GatherElements: the shape of indices, the dtype of data.
#include "ops/GatherElements.hpp"
#include "shape/ElementsIndices.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status gatherElementsShape(ShapeContext& ctx) {
  GatherElementsParams p;
  TESSERA_RETURN_IF_ERROR(GatherElementsParams::parse(ctx.node, &p));
  const Tensor* data = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  if (!data || !indices) return ctx.error("needs inputs 'data' and 'indices'");
  TESSERA_RETURN_IF_ERROR(checkElementsIndices(ctx, *data, *indices, p.axis));
  ctx.output(0) = Tensor(indices->shape(), data->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(GatherElements, gatherElementsShape);

}  // namespace tessera
