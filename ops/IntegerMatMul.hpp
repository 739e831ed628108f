// MatMulInteger and QLinearMatMul: numpy matmul (ops/MatMul.hpp) of int8/uint8 matrices,
// accumulated exactly in int32 after subtracting zero points.
//
//   MatMulInteger: Y[i, m, n] = sum_k (A[m, k] - a_zp[m]) * (B[k, n] - b_zp[n])     (int32)
//   QLinearMatMul: y = requantize(that sum, a_scale[m] * b_scale[n] / y_scale[m], y_zp[m])
//                  (ops/Quantize.hpp), in y_zero_point's dtype
//
// A zero point or scale of A (or of Y) is per tensor (1 element), per row (1-D, one value
// per row, the same for every matrix of the batch) or per row of each matrix (A's shape with
// its last dimension 1); one of B likewise per column (1-D, or B's shape with its second to
// last dimension 1). A zero point has its operand's dtype.
#pragma once
#include <cstdint>
#include <vector>

#include "ops/MatMul.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

// Where the value of a per-row or per-column parameter lies: element (matrix i, row or column
// r) is at i * matrixStride + r * stride (both 0 for a per-tensor value).
struct MatrixVectorIndex {
  int64_t matrixStride = 0, stride = 0;
  int64_t at(int64_t matrix, int64_t r) const { return matrix * matrixStride + r * stride; }
};

struct IntegerMatMulPlan {
  MatMulShape shape;
  MatrixVectorIndex aZero, bZero;                   // both ops
  MatrixVectorIndex aScale, bScale, yScale, yZero;  // QLinearMatMul only
  DataType outputType = DataType::kI32;
};

// The op's inputs in ONNX order (nullptr for an omitted one): MatMulInteger (A, B, a_zp,
// b_zp); QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp). Messages do not
// name the node; callers add it.
Status resolveIntegerMatMul(const std::vector<const Tensor*>& inputs, bool qlinear, IntegerMatMulPlan* out);

// Input positions of the two ops.
struct IntegerMatMulInputs {
  int a, b, aZero, bZero, aScale, bScale, yScale, yZero;  // -1: the op has no such input
  static IntegerMatMulInputs of(bool qlinear) {
    return qlinear ? IntegerMatMulInputs{0, 3, 2, 5, 1, 4, 6, 7} : IntegerMatMulInputs{0, 1, 2, 3, -1, -1, -1, -1};
  }
};

}  // namespace tessera
