// OneHot: the indices' shape with `depth` inserted at `axis`, in the dtype of values, which
// must hold [off, on].
#include "ops/OneHot.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status oneHotShape(ShapeContext& ctx) {
  OneHotParams p;
  TESSERA_RETURN_IF_ERROR(OneHotParams::parse(ctx.node, &p));
  const Tensor* indices = ctx.input(0);
  const Tensor* values = ctx.input(2);
  if (!indices || !values) return ctx.error("needs indices (0), depth (1) and values (2)");
  if (!isFloat(indices->dtype()) && !isInteger(indices->dtype()))
    return ctx.error("indices " + indices->describe() + " must be numeric");
  if (values->elementCount() != 2 || values->rank() != 1)
    return ctx.error("values " + values->describe() + " must hold two elements, [off, on]");
  if (values->dtype() == DataType::kString || dataTypeSize(values->dtype()) == 0)
    return ctx.error("values " + values->describe() + " have an unsupported dtype");
  int64_t axis = 0, depth = 0;
  TESSERA_RETURN_IF_ERROR(p.outputAxis(ctx.node, indices->rank(), &axis));
  TESSERA_RETURN_IF_ERROR(OneHotParams::depth(ctx.node, ctx.input(1), &depth));
  Shape out = indices->shape();
  out.insert(out.begin() + axis, depth);
  ctx.output(0) = Tensor(out, values->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(OneHot, oneHotShape);

}  // namespace tessera
