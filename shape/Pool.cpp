// Pooling: y = [N, C, output spatial...] (all 1 for the global pools); MaxPool's optional
// Indices output is int64 of y's shape.
#include "ops/Pool.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status poolShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is required");
  PoolParams p;
  TESSERA_RETURN_IF_ERROR(PoolParams::parse(ctx.node, &p));
  WindowGeometry g;
  Status st = resolvePool(p, x->shape(), &g);
  if (!st.isOk()) return ctx.error(st.message());
  Shape y = {x->dim(0), x->dim(1)};
  y.insert(y.end(), g.output.begin(), g.output.end());
  ctx.output(0) = Tensor(y, x->dtype());
  if (ctx.outputs.size() > 1) {
    if (p.kind != PoolKind::kMax) return ctx.error("only MaxPool has a second output (Indices)");
    ctx.output(1) = Tensor(y, DataType::kI64);
  }
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(MaxPool, poolShape);
TESSERA_REGISTER_SHAPE(AveragePool, poolShape);
TESSERA_REGISTER_SHAPE(GlobalMaxPool, poolShape);
TESSERA_REGISTER_SHAPE(GlobalAveragePool, poolShape);

}  // namespace tessera
