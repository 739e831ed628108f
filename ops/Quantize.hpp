// Linear quantization (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and the
// quantized MatMul/Conv ops): the integer rules every backend follows.
//
//   quantize:   q = saturate(roundHalfToEven(x / scale) + zero_point)   (int8 or uint8)
//   dequantize: x = (q - zero_point) * scale                            (float)
//
// Rounding is to the nearest integer with ties to even (numpy's rint); saturation clamps to
// the integer type's range. A scale is a scalar (or a 1-element tensor: per tensor) or 1-D
// with one value per index of `axis` (per axis, opset 13 on); its zero point, when given,
// has the scale's shape. The requantization of QLinearMatMul / QLinearConv multiplies the
// int32 accumulator by a_scale * b_scale / y_scale computed in float (as ONNX Runtime), then
// rounds and saturates the same way.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "tessera/Backend.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

// Nearest integer, ties to even: the FPU's default rounding mode, as numpy's rint.
inline float roundHalfToEven(float v) { return std::nearbyint(v); }
inline double roundHalfToEven(double v) { return std::nearbyint(v); }

// An integral value `v` clamped into Q's range. NaN gives Q's lowest value (ONNX leaves it
// open; a float-to-int conversion of NaN would be undefined).
template <typename Q, typename F>
inline Q saturateTo(F v) {
  constexpr F lo = static_cast<F>(std::numeric_limits<Q>::lowest());
  constexpr F hi = static_cast<F>(std::numeric_limits<Q>::max());
  if (!(v > lo)) return std::numeric_limits<Q>::lowest();
  if (v >= hi) return std::numeric_limits<Q>::max();
  return static_cast<Q>(v);
}

// QLinearMatMul / QLinearConv: y from an int32 accumulator and the float multiplier
// a_scale * b_scale / y_scale.
template <typename Q>
inline Q requantize(int32_t acc, float multiplier, int32_t zeroPoint) {
  return saturateTo<Q>(roundHalfToEven(static_cast<float>(acc) * multiplier) + static_cast<float>(zeroPoint));
}

// The 8-bit types quantized data may have.
inline bool isQuantized8(DataType t) { return t == DataType::kI8 || t == DataType::kU8; }

// Element i of an integer tensor (int8, uint8 or int32) as int32; 0 for a missing tensor.
inline int32_t integerAt(const Tensor* t, int64_t i) {
  if (!t) return 0;
  switch (t->dtype()) {
    case DataType::kI8: return t->data<int8_t>()[i];
    case DataType::kU8: return t->data<uint8_t>()[i];
    case DataType::kI32: return t->data<int32_t>()[i];
    default: return 0;
  }
}

// An input that is present and not empty (ONNX marks an omitted optional input with "").
inline const Tensor* presentInput(const Tensors& inputs, size_t i) {
  return i < inputs.size() && inputs[i] && inputs[i]->dtype() != DataType::kUnknown ? inputs[i] : nullptr;
}

// How a scale and its zero point apply to x, viewed as [outer, channels, inner]: per tensor
// (channels = 1, the whole tensor one block) or per index along the axis.
struct QuantAxis {
  bool perAxis = false;
  int64_t outer = 1, channels = 1, inner = 1;
};

// Checks `scale` (float; scalar, 1 element, or [x.shape[axis]] when perAxisAllowed) and
// `zeroPoint` (optional: the scale's element count, dtype `zeroPointType` unless kUnknown)
// against x's shape. Messages do not name the node; callers add it.
Status resolveQuantAxis(const Shape& x, const Tensor& scale, const Tensor* zeroPoint, int64_t axis,
                        bool perAxisAllowed, QuantAxis* out);

// QuantizeLinear and DequantizeLinear attributes.
struct QuantizeLinearParams {
  int64_t axis = 1;           // may be negative; used only with a 1-D scale
  bool perAxisAllowed = true;  // opset 13 on; opset 10 takes scalar scales only
  DataType outputType = DataType::kUnknown;  // QuantizeLinear's output_dtype; kUnknown: not set

  static Status parse(const Node& node, QuantizeLinearParams* out);
};

}  // namespace tessera
