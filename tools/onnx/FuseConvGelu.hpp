// Graph pass: GELU after a Conv, ConvTranspose or MatMul, written out as PyTorch exports it
// before opset 20 (x/2 (1 + erf(x / sqrt 2)): Div or Mul by 1/sqrt 2, Erf, Add 1, and two Muls
// in either order), becomes its fused activation Gelu (ops/FusedActivation.hpp): four passes
// over x fewer. BERT's and ViT's MLPs have one per layer, after a MatMul with its bias
// (FuseMatMulBias). The tanh form, x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (GPT-2's
// gelu_new, the cube as Pow(x, 3) or x * (x * x)), becomes GeluTanh: seven passes fewer.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when x is read only by the chain, the chain's values by nothing else, none a graph
// output, and the producer has no activation yet. Returns the number of GELUs fused.
int fuseConvGelu(Graph* graph);

}  // namespace tessera
