// MatMul: numpy matmul shapes (batch broadcasting, 1-D operands promoted then squeezed).
#include "ops/FusedActivation.hpp"
#include "ops/MatMul.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status matMulShape(ShapeContext& ctx) {
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  if (!a || !b) return ctx.error("inputs 'A' and 'B' are required");
  if (a->dtype() != b->dtype())
    return ctx.error(std::string("'A' is ") + dataTypeName(a->dtype()) + " but 'B' is " + dataTypeName(b->dtype()));
  if (matMulTransB(ctx.node) && b->rank() < 2)
    return ctx.error("transB (from an import-time fusion) needs a B of rank 2 or more; B is " + b->describe());
  MatMulShape s;
  Status st = resolveMatMul(a->shape(), matMulB(ctx.node, b->shape()), &s);
  if (!st.isOk()) return ctx.error(st.message());
  if (const Tensor* bias = ctx.input(kMatMulBiasInput)) {
    if (bias->dtype() != a->dtype() || bias->rank() != 1 || bias->dim(0) != s.N)
      return ctx.error("the bias (input 3, from an import-time fusion) must be " + std::to_string(s.N) + " " +
                       dataTypeName(a->dtype()) + " values, one per output column; it is " + bias->describe());
  }
  if (const Tensor* z = ctx.input(kMatMulResidualInput)) {
    if (z->dtype() != a->dtype() || z->shape() != s.output)
      return ctx.error(std::string("the residual Z (input 4, from an import-time fusion) must be ") +
                       dataTypeName(a->dtype()) + " " + shapeToString(s.output) + ", the product's shape; it is " +
                       z->describe());
  }
  FusedActivation act;
  TESSERA_RETURN_IF_ERROR(FusedActivation::parse(ctx.node, &act));
  if (act.hasAffine()) return ctx.error("a fused activation_affine is not supported on MatMul");
  ctx.output(0) = Tensor(s.output, a->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(MatMul, matMulShape);

}  // namespace tessera
