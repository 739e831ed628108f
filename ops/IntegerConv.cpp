#include "ops/IntegerConv.hpp"

#include "ops/Quantize.hpp"

namespace tessera {
namespace {

const Tensor* at(const std::vector<const Tensor*>& inputs, int i) {
  if (i < 0 || static_cast<size_t>(i) >= inputs.size() || !inputs[i] || inputs[i]->dtype() == DataType::kUnknown)
    return nullptr;
  return inputs[i];
}

// A per-tensor parameter (1 element), or when `perChannel` > 0 one of [perChannel].
Status checkCount(const Tensor* t, int64_t perChannel, const std::string& what) {
  if (!t || t->elementCount() == 1) return Status::ok();
  if (perChannel > 0 && t->rank() == 1 && t->dim(0) == perChannel) return Status::ok();
  return Status::invalid(what + " " + t->describe() + " must have 1 element" +
                         (perChannel > 0 ? " or one per output channel (" + std::to_string(perChannel) + ")" : ""));
}

Status checkZeroPoint(const Tensor* zp, const Tensor& operand, int64_t perChannel, const std::string& what) {
  if (zp && zp->dtype() != operand.dtype())
    return Status::invalid(what + " " + zp->describe() + " must have the dtype of its operand " + operand.describe());
  return checkCount(zp, perChannel, what);
}

Status checkScale(const Tensor* scale, int64_t perChannel, const std::string& what) {
  if (!scale) return Status::invalid(what + " is required");
  if (!isFloat(scale->dtype())) return Status::invalid(what + " " + scale->describe() + " must be a float tensor");
  return checkCount(scale, perChannel, what);
}

}  // namespace

Status resolveIntegerConv(const ConvParams& p, const std::vector<const Tensor*>& inputs, bool qlinear,
                          ConvShape* out, DataType* outputType) {
  const IntegerConvInputs ix = IntegerConvInputs::of(qlinear);
  const Tensor* x = at(inputs, ix.x);
  const Tensor* w = at(inputs, ix.w);
  if (!x || !w) return Status::invalid("inputs 'x' and 'w' are required");
  for (const Tensor* t : {x, w})
    if (!isQuantized8(t->dtype())) return Status::invalid("input " + t->describe() + " must be int8 or uint8");
  ConvShape c;
  TESSERA_RETURN_IF_ERROR(resolveConv(p, x->shape(), w->shape(), &c));
  TESSERA_RETURN_IF_ERROR(checkZeroPoint(at(inputs, ix.xZero), *x, 0, "x_zero_point"));
  TESSERA_RETURN_IF_ERROR(checkZeroPoint(at(inputs, ix.wZero), *w, c.outChannels, "w_zero_point"));
  *outputType = DataType::kI32;
  if (qlinear) {
    TESSERA_RETURN_IF_ERROR(checkScale(at(inputs, ix.xScale), 0, "x_scale"));
    TESSERA_RETURN_IF_ERROR(checkScale(at(inputs, ix.wScale), c.outChannels, "w_scale"));
    TESSERA_RETURN_IF_ERROR(checkScale(at(inputs, ix.yScale), 0, "y_scale"));
    const Tensor* yZero = at(inputs, ix.yZero);
    if (!yZero) return Status::invalid("y_zero_point is required (it gives y's dtype)");
    if (!isQuantized8(yZero->dtype()))
      return Status::invalid("y_zero_point " + yZero->describe() + " must be int8 or uint8");
    TESSERA_RETURN_IF_ERROR(checkCount(yZero, 0, "y_zero_point"));
    const Tensor* bias = at(inputs, ix.bias);
    if (bias && (bias->dtype() != DataType::kI32 || bias->rank() != 1 || bias->dim(0) != c.outChannels))
      return Status::invalid("bias 'B' " + bias->describe() + " must be int32 [" + std::to_string(c.outChannels) + "]");
    *outputType = yZero->dtype();
  }
  *out = c;
  return Status::ok();
}

}  // namespace tessera
