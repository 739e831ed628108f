// Flatten: [prod(dims[:axis]), prod(dims[axis:])]; axis may equal the rank.
#include "ops/Flatten.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status flattenShape(ShapeContext& ctx) {
  FlattenParams p;
  TESSERA_RETURN_IF_ERROR(FlattenParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  const int64_t rank = x->rank();
  int64_t axis = p.axis < 0 ? p.axis + rank : p.axis;
  if (axis < 0 || axis > rank)
    return ctx.error("axis " + std::to_string(p.axis) + " is out of range [-" +
                     std::to_string(rank) + ", " + std::to_string(rank) + "] for input " +
                     x->describe());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t& part = d < axis ? outer : inner;
    if (!checkedMul(part, x->shape()[d], &part)) return ctx.error("input " + x->describe() + " is too large");
  }
  ctx.output(0) = Tensor({outer, inner}, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Flatten, flattenShape);

}  // namespace tessera
