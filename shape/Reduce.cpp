// Reduce*: the input shape with the reduced axes set to 1 (keepdims) or removed; the
// input's dtype.
#include "ops/Reduce.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status reduceShape(ShapeContext& ctx) {
  ReduceParams p;
  TESSERA_RETURN_IF_ERROR(ReduceParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  std::vector<bool> reduced;
  bool identity = false;
  TESSERA_RETURN_IF_ERROR(
      resolveReduceAxes(ctx.node, p, x->shape(), ctx.input(1), &reduced, &identity));
  ctx.output(0) = Tensor(identity ? x->shape() : reducedShape(x->shape(), reduced, p.keepDims),
                         x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ReduceSum, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceMean, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceMax, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceMin, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceProd, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceL1, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceL2, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceSumSquare, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceLogSumExp, reduceShape);
TESSERA_REGISTER_SHAPE(ReduceLogSum, reduceShape);

}  // namespace tessera
