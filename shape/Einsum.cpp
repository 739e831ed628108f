// Einsum: the output's shape from the equation's letters (ops/Einsum.hpp); every operand in
// one numeric dtype.
#include <vector>

#include "ops/Einsum.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status einsumShape(ShapeContext& ctx) {
  EinsumParams p;
  TESSERA_RETURN_IF_ERROR(EinsumParams::parse(ctx.node, &p));
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    const Tensor* t = ctx.input(i);
    if (!t) return ctx.error("input " + std::to_string(i) + " is missing");
    if (t->dtype() != ctx.input(0)->dtype())
      return ctx.error("input " + t->describe() + " is not in input 0's dtype " + dataTypeName(ctx.input(0)->dtype()));
    shapes.push_back(t->shape());
  }
  if (shapes.empty()) return ctx.error("needs at least one input");
  EinsumDims d;
  TESSERA_RETURN_IF_ERROR(resolveEinsum(ctx.node, p, shapes, &d));
  ctx.output(0) = Tensor(d.outputShape, ctx.input(0)->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Einsum, einsumShape);

}  // namespace tessera
