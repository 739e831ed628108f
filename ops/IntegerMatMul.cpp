#include "ops/IntegerMatMul.hpp"

#include "ops/Quantize.hpp"

namespace tessera {
namespace {

const Tensor* at(const std::vector<const Tensor*>& inputs, int i) {
  if (i < 0 || static_cast<size_t>(i) >= inputs.size() || !inputs[i] || inputs[i]->dtype() == DataType::kUnknown)
    return nullptr;
  return inputs[i];
}

// `p` against an operand of shape `operand` whose rows (or columns) it follows. A 1-D
// operand is a row vector (A) or a column vector (B), as matmul promotes it.
Status resolveVector(const Tensor* p, const Shape& operand, bool rows, const std::string& what,
                     MatrixVectorIndex* out) {
  *out = MatrixVectorIndex();
  if (!p || p->elementCount() == 1) return Status::ok();
  Shape s = operand;
  if (s.size() == 1) s.insert(rows ? s.begin() : s.end(), 1);
  const int64_t count = rows ? s[s.size() - 2] : s.back();
  if (p->rank() == 1 && p->dim(0) == count) {
    out->stride = 1;
    return Status::ok();
  }
  Shape perMatrix = s;
  perMatrix[rows ? s.size() - 1 : s.size() - 2] = 1;
  if (operand.size() > 1 && p->shape() == perMatrix) {
    out->stride = 1;
    out->matrixStride = count;
    return Status::ok();
  }
  return Status::invalid(what + " " + p->describe() + " must have 1 element, " + std::to_string(count) +
                         (rows ? " (one per row)" : " (one per column)") + " or the shape " +
                         shapeToString(perMatrix) + " (one per " + (rows ? "row" : "column") + " of each matrix)");
}

Status checkZeroPoint(const Tensor* zp, const Tensor& operand, const std::string& what) {
  if (zp && zp->dtype() != operand.dtype())
    return Status::invalid(what + " " + zp->describe() + " must have the dtype of its operand " + operand.describe());
  return Status::ok();
}

Status checkScale(const Tensor* scale, const std::string& what) {
  if (!scale) return Status::invalid(what + " is required");
  if (!isFloat(scale->dtype())) return Status::invalid(what + " " + scale->describe() + " must be a float tensor");
  return Status::ok();
}

}  // namespace

Status resolveIntegerMatMul(const std::vector<const Tensor*>& inputs, bool qlinear, IntegerMatMulPlan* out) {
  const IntegerMatMulInputs ix = IntegerMatMulInputs::of(qlinear);
  const Tensor* a = at(inputs, ix.a);
  const Tensor* b = at(inputs, ix.b);
  if (!a || !b) return Status::invalid("inputs 'A' and 'B' are required");
  for (const Tensor* t : {a, b})
    if (!isQuantized8(t->dtype())) return Status::invalid("input " + t->describe() + " must be int8 or uint8");
  IntegerMatMulPlan p;
  TESSERA_RETURN_IF_ERROR(resolveMatMul(a->shape(), b->shape(), &p.shape));
  const Tensor* aZero = at(inputs, ix.aZero);
  const Tensor* bZero = at(inputs, ix.bZero);
  TESSERA_RETURN_IF_ERROR(checkZeroPoint(aZero, *a, "a_zero_point"));
  TESSERA_RETURN_IF_ERROR(checkZeroPoint(bZero, *b, "b_zero_point"));
  TESSERA_RETURN_IF_ERROR(resolveVector(aZero, a->shape(), true, "a_zero_point", &p.aZero));
  TESSERA_RETURN_IF_ERROR(resolveVector(bZero, b->shape(), false, "b_zero_point", &p.bZero));
  if (qlinear) {
    const Tensor* aScale = at(inputs, ix.aScale);
    const Tensor* bScale = at(inputs, ix.bScale);
    const Tensor* yScale = at(inputs, ix.yScale);
    const Tensor* yZero = at(inputs, ix.yZero);
    TESSERA_RETURN_IF_ERROR(checkScale(aScale, "a_scale"));
    TESSERA_RETURN_IF_ERROR(checkScale(bScale, "b_scale"));
    TESSERA_RETURN_IF_ERROR(checkScale(yScale, "y_scale"));
    if (!yZero) return Status::invalid("y_zero_point is required (it gives y's dtype)");
    if (!isQuantized8(yZero->dtype()))
      return Status::invalid("y_zero_point " + yZero->describe() + " must be int8 or uint8");
    TESSERA_RETURN_IF_ERROR(resolveVector(aScale, a->shape(), true, "a_scale", &p.aScale));
    TESSERA_RETURN_IF_ERROR(resolveVector(bScale, b->shape(), false, "b_scale", &p.bScale));
    // y's rows: those of the output's matrices before matmul drops a 1-D operand's unit dimension.
    Shape y = p.shape.batch;
    y.push_back(p.shape.M);
    y.push_back(p.shape.N);
    TESSERA_RETURN_IF_ERROR(resolveVector(yScale, y, true, "y_scale", &p.yScale));
    TESSERA_RETURN_IF_ERROR(resolveVector(yZero, y, true, "y_zero_point", &p.yZero));
    p.outputType = yZero->dtype();
  }
  *out = p;
  return Status::ok();
}

}  // namespace tessera
