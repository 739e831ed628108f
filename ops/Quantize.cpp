#include "ops/Quantize.hpp"

namespace tessera {

Status resolveQuantAxis(const Shape& x, const Tensor& scale, const Tensor* zeroPoint, int64_t axis,
                        bool perAxisAllowed, QuantAxis* out) {
  if (!isFloat(scale.dtype())) return Status::invalid("scale " + scale.describe() + " must be a float tensor");
  QuantAxis q;
  q.inner = elementCount(x);
  // A 1-element scale is per tensor whatever its rank (ONNX's tests give [1] for scalars).
  if (scale.elementCount() != 1) {
    if (!perAxisAllowed)
      return Status::invalid("scale " + scale.describe() + " must be a scalar (per-axis scales need opset 13)");
    int64_t a = 0;
    if (!normalizeAxis(axis, static_cast<int64_t>(x.size()), &a))
      return Status::invalid("axis " + std::to_string(axis) + " is out of range for x of shape " + shapeToString(x));
    if (scale.rank() != 1 || scale.dim(0) != x[a])
      return Status::invalid("scale " + scale.describe() + " must be a scalar or 1-D with x's extent " +
                             std::to_string(x[a]) + " along axis " + std::to_string(axis) + " (x " +
                             shapeToString(x) + ")");
    q.perAxis = true;
    q.channels = x[a];
    q.outer = 1;
    q.inner = 1;
    for (int64_t d = 0; d < a; ++d) q.outer *= x[d];
    for (size_t d = a + 1; d < x.size(); ++d) q.inner *= x[d];
  }
  if (zeroPoint && zeroPoint->elementCount() != scale.elementCount())
    return Status::invalid("zero point " + zeroPoint->describe() + " must have the shape of scale " + scale.describe());
  *out = q;
  return Status::ok();
}

Status QuantizeLinearParams::parse(const Node& node, QuantizeLinearParams* out) {
  QuantizeLinearParams p;
  p.axis = node.attrs.getInt("axis", 1);
  p.perAxisAllowed = node.opset >= 13;
  if (node.attrs.getInt("block_size", 0) != 0)
    return Status::unsupported(node.label() + ": blocked quantization (block_size " +
                               std::to_string(node.attrs.getInt("block_size", 0)) + ") is not supported");
  // output_dtype (opset 21) uses TensorProto's numbering: 2 UINT8, 3 INT8.
  const int64_t outputType = node.attrs.getInt("output_dtype", 0);
  if (outputType == 2) p.outputType = DataType::kU8;
  else if (outputType == 3) p.outputType = DataType::kI8;
  else if (outputType != 0)
    return Status::unsupported(node.label() + ": output_dtype " + std::to_string(outputType) +
                               " is not supported (only UINT8 and INT8)");
  *out = p;
  return Status::ok();
}

}  // namespace tessera
