// Shape: a 1-D int64 output with one element per selected input dimension; Size: a scalar
// int64, the input's element count. Both values are known as soon as the input's shape is.
#include "ops/Shape.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status shapeShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  ShapeParams p;
  TESSERA_RETURN_IF_ERROR(ShapeParams::parse(ctx.node, &p));
  int64_t begin = 0, end = 0;
  p.range(x->rank(), &begin, &end);
  // The values are known now: giving them lets the Session fold shape sub-graphs.
  Tensor out = Tensor::hostAllocate(Shape{end - begin}, DataType::kI64);
  for (int64_t d = begin; d < end; ++d) out.data<int64_t>()[d - begin] = x->shape()[d];
  ctx.output(0) = out;
  return Status::ok();
}

Status sizeShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  Tensor out = Tensor::hostAllocate(Shape{}, DataType::kI64);
  out.data<int64_t>()[0] = x->elementCount();
  ctx.output(0) = out;
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Shape, shapeShape);
TESSERA_REGISTER_SHAPE(Size, sizeShape);

}  // namespace tessera
