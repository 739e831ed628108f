// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (semantics: ops/Quantize.hpp):
// y has x's shape; QuantizeLinear's dtype is its zero point's (uint8 without one),
// DequantizeLinear's its scale's, DynamicQuantizeLinear's uint8 with a scalar f32 scale and
// a scalar uint8 zero point.
#include "ops/Quantize.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status checkScales(ShapeContext& ctx, const QuantizeLinearParams& p, const Tensor& x, const Tensor* scale,
                   const Tensor* zeroPoint) {
  if (!scale) return ctx.error("input 1 (the scale) is required");
  QuantAxis q;
  Status st = resolveQuantAxis(x.shape(), *scale, zeroPoint, p.axis, p.perAxisAllowed, &q);
  return st.isOk() ? st : ctx.error(st.message());
}

Status quantizeLinearShape(ShapeContext& ctx) {
  QuantizeLinearParams p;
  TESSERA_RETURN_IF_ERROR(QuantizeLinearParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  const Tensor* zeroPoint = ctx.input(2);
  if (zeroPoint && zeroPoint->dtype() == DataType::kUnknown) zeroPoint = nullptr;
  if (!x) return ctx.error("input 'x' is required");
  if (!isFloat(x->dtype()) && x->dtype() != DataType::kI32)
    return ctx.error("input 'x' " + x->describe() + " must be float or int32");
  DataType out = p.outputType == DataType::kUnknown ? DataType::kU8 : p.outputType;
  if (zeroPoint) {
    if (!isQuantized8(zeroPoint->dtype()))
      return ctx.error("zero point " + zeroPoint->describe() + " must be int8 or uint8 (other types are not supported)");
    if (p.outputType != DataType::kUnknown && p.outputType != zeroPoint->dtype())
      return ctx.error(std::string("output_dtype ") + dataTypeName(p.outputType) + " differs from the zero point " +
                       zeroPoint->describe());
    out = zeroPoint->dtype();
  }
  TESSERA_RETURN_IF_ERROR(checkScales(ctx, p, *x, ctx.input(1), zeroPoint));
  ctx.output(0) = Tensor(x->shape(), out);
  return Status::ok();
}

Status dequantizeLinearShape(ShapeContext& ctx) {
  QuantizeLinearParams p;
  TESSERA_RETURN_IF_ERROR(QuantizeLinearParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  const Tensor* zeroPoint = ctx.input(2);
  if (zeroPoint && zeroPoint->dtype() == DataType::kUnknown) zeroPoint = nullptr;
  if (!x) return ctx.error("input 'x' is required");
  if (!isQuantized8(x->dtype()) && x->dtype() != DataType::kI32)
    return ctx.error("input 'x' " + x->describe() + " must be int8, uint8 or int32 (other types are not supported)");
  if (zeroPoint && zeroPoint->dtype() != x->dtype())
    return ctx.error("zero point " + zeroPoint->describe() + " must have the dtype of 'x' " + x->describe());
  TESSERA_RETURN_IF_ERROR(checkScales(ctx, p, *x, ctx.input(1), zeroPoint));
  ctx.output(0) = Tensor(x->shape(), ctx.input(1)->dtype());
  return Status::ok();
}

Status dynamicQuantizeLinearShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'x' is required");
  if (x->dtype() != DataType::kF32) return ctx.error("input 'x' " + x->describe() + " must be f32");
  ctx.output(0) = Tensor(x->shape(), DataType::kU8);
  ctx.output(1) = Tensor({}, DataType::kF32);
  ctx.output(2) = Tensor({}, DataType::kU8);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(QuantizeLinear, quantizeLinearShape);
TESSERA_REGISTER_SHAPE(DequantizeLinear, dequantizeLinearShape);
TESSERA_REGISTER_SHAPE(DynamicQuantizeLinear, dynamicQuantizeLinearShape);

}  // namespace tessera
