// ConvInteger (int32) and QLinearConv (y_zero_point's dtype): Conv's output shape (ops/Conv.hpp);
// operand, zero point, scale and bias checks in ops/IntegerConv.cpp.
#include "ops/IntegerConv.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

template <bool QLinear>
Status integerConvShape(ShapeContext& ctx) {
  ConvParams p;
  TESSERA_RETURN_IF_ERROR(ConvParams::parse(ctx.node, &p));
  ConvShape c;
  DataType outputType = DataType::kI32;
  Status st = resolveIntegerConv(p, ctx.inputs, QLinear, &c, &outputType);
  if (!st.isOk()) return ctx.error(st.message());
  ctx.output(0) = Tensor(c.outputShape(), outputType);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ConvInteger, integerConvShape<false>);
TESSERA_REGISTER_SHAPE(QLinearConv, integerConvShape<true>);

}  // namespace tessera
