// MeanVarianceNormalization: x's shape and float dtype; axes within x's rank, not repeated.
#include "ops/MeanVarianceNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status mvnShape(ShapeContext& ctx) {
  MeanVarianceNormalizationParams p;
  TESSERA_RETURN_IF_ERROR(MeanVarianceNormalizationParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is missing");
  if (!isFloat(x->dtype())) return ctx.error("input " + x->describe() + " must be a float tensor");
  std::vector<bool> reduced;
  TESSERA_RETURN_IF_ERROR(p.reducedDims(ctx.node, x->rank(), &reduced));
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(MeanVarianceNormalization, mvnShape);

}  // namespace tessera
