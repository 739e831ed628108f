// MatMulInteger (int32) and QLinearMatMul (y_zero_point's dtype): numpy matmul shapes;
// operand, zero point and scale checks in ops/IntegerMatMul.cpp.
#include "ops/IntegerMatMul.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

template <bool QLinear>
Status integerMatMulShape(ShapeContext& ctx) {
  IntegerMatMulPlan p;
  Status st = resolveIntegerMatMul(ctx.inputs, QLinear, &p);
  if (!st.isOk()) return ctx.error(st.message());
  ctx.output(0) = Tensor(p.shape.output, p.outputType);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(MatMulInteger, integerMatMulShape<false>);
TESSERA_REGISTER_SHAPE(QLinearMatMul, integerMatMulShape<true>);

}  // namespace tessera
