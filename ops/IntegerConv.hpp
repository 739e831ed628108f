// ConvInteger and QLinearConv: Conv (attributes and geometry: ops/Conv.hpp) over int8/uint8
// data, accumulated exactly in int32 after subtracting zero points; padding holds x's zero
// point, so it adds nothing.
//
//   ConvInteger: y[n, m, p] = sum_{c, tap} (x[n, c, p + tap] - x_zp) * (w[m, c, tap] - w_zp[m])
//   QLinearConv: y = requantize(that sum + B[m], x_scale * w_scale[m] / y_scale, y_zp)
//                (ops/Quantize.hpp), in y_zero_point's dtype; B is optional int32 [M]
//
// x_zero_point, x_scale, y_scale and y_zero_point are per tensor (1 element); w_zero_point and
// w_scale per tensor or per output channel ([M]). A zero point has its operand's dtype.
#pragma once
#include <vector>

#include "ops/Conv.hpp"

namespace tessera {

// Input positions of the two ops (-1: the op has no such input).
struct IntegerConvInputs {
  int x, w, xZero, wZero, xScale, wScale, yScale, yZero, bias;
  static IntegerConvInputs of(bool qlinear) {
    return qlinear ? IntegerConvInputs{0, 3, 2, 5, 1, 4, 6, 7, 8} : IntegerConvInputs{0, 1, 2, 3, -1, -1, -1, -1, -1};
  }
};

// The op's inputs in ONNX order (nullptr for an omitted one). Gives the geometry and y's
// dtype (int32 for ConvInteger). Messages do not name the node; callers add it.
Status resolveIntegerConv(const ConvParams& p, const std::vector<const Tensor*>& inputs, bool qlinear,
                          ConvShape* out, DataType* outputType);

}  // namespace tessera
