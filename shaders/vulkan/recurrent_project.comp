// variants: ; precision: fp32 fp16
// The input projection of RNN / GRU / LSTM (ops/Recurrent.hpp) for every step at once:
// xw[row, col] = X[row] . W[col] + Wb[col] (+ Rb[col] where the bias sits outside the gate's
// reset product), row over X's seq*batch rows (in X's order), col over D*G*H (direction, gate,
// unit). One invocation per output: seq*batch*D*G*H dot products of length `input`, all
// independent (the parallel part of the op; recurrent.comp then walks the steps).
// P: 0 count (rows * cols), 1 input, 2 cols (D*G*H), 3 G*H, 4 has B, 5 the first gate column
//    (within G*H) whose R bias is left to recurrent.comp (GRU linear_before_reset: 2H; else G*H)
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
TENSOR_IN(0, x);   // [rows, input]
TENSOR_IN(1, w);   // [D*G*H, input]
TENSOR_IN(2, bias);  // [D, 2*G*H]: W biases, then R biases (when P[4] != 0)
F32_OUT(3, xw);    // [rows, D*G*H]

void main() {
  uint i = gid();
  if (i >= P[0]) return;
  int inSize = pint(1), cols = pint(2), gh = pint(3);
  int row = int(i / uint(cols)), col = int(i % uint(cols));
  int xo = row * inSize, wo = col * inSize;
  float acc = 0.0;
  for (int k = 0; k < inSize; ++k) acc += LD(x[xo + k]) * LD(w[wo + k]);
  if (P[4] != 0u) {
    int d = col / gh, g = col % gh, bo = d * 2 * gh + g;
    acc += LD(bias[bo]);
    if (g < pint(5)) acc += LD(bias[bo + gh]);
  }
  xw[i] = acc;
}
