// Gemm: Y = [M, N] from A (M x K, or K x M when transA) and B; C must broadcast to it.
#include "ops/Gemm.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status gemmShape(ShapeContext& ctx) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  if (!a || !b) return ctx.error("inputs 'A' and 'B' are required");
  GemmParams p;
  TESSERA_RETURN_IF_ERROR(GemmParams::parse(ctx.node, &p));
  if (a->rank() != 2 || b->rank() != 2)
    return ctx.error("inputs must be matrices but 'A' has shape " + shapeToString(a->shape()) + " and 'B' " +
                     shapeToString(b->shape()));
  if (a->dtype() != b->dtype())
    return ctx.error(std::string("'A' is ") + dataTypeName(a->dtype()) + " but 'B' is " + dataTypeName(b->dtype()));
  const int64_t M = p.transA ? a->dim(1) : a->dim(0), K = p.transA ? a->dim(0) : a->dim(1);
  const int64_t Kb = p.transB ? b->dim(1) : b->dim(0), N = p.transB ? b->dim(0) : b->dim(1);
  if (K != Kb)
    return ctx.error("inner dimensions differ: A' has " + std::to_string(K) + " columns but B' has " +
                     std::to_string(Kb) + " rows (A " + shapeToString(a->shape()) + ", B " +
                     shapeToString(b->shape()) + ", transA " + std::to_string(p.transA) + ", transB " +
                     std::to_string(p.transB) + ")");
  const Shape y = {M, N};
  if (const Tensor* c = ctx.input(2)) {
    Shape out;
    if (c->rank() > 2 || !broadcastShapes(y, c->shape(), &out) || out != y)
      return ctx.error("'C' of shape " + shapeToString(c->shape()) + " does not broadcast to the result " +
                       shapeToString(y));
  }
  ctx.output(0) = Tensor(y, a->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Gemm, gemmShape);

}  // namespace tessera
