// Graph pass: the tail of a squeeze-and-excite block (MobileNetV3, PP-LCNet; ten times in
// PP-OCRv4 det, nine in the PaddleOCR classifier), as exporters write it after the activation
// passes:
//   p = GlobalAveragePool(x)   h = Conv1x1(p) [+ act]   s = Conv1x1(h) [+ act]   y = Mul(x, s)
// becomes SqueezeExcite(x, "", W1, B1, W2, B2) (ops/SqueezeExcite.hpp): the pool, the two
// convs and the Mul become one step, which takes x's means itself, so a GPU dispatches one
// kernel for the block (two on planes past a work-group's tile), not four. Where p has other
// readers the pool stays and the node reads it: SqueezeExcite(x, p, W1, B1, W2, B2).
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when h and s feed only the next step (neither a graph output), both convs have
// constant f32 weights [C1, C, 1, 1] and [C, C1, 1, 1] (bias constant or absent), group 1,
// no padding, the first no activation_affine, and C and C1 are at most
// SqueezeExciteParams::kMaxChannels. Run after fuseResidualScale, which turns a residual
// `x + x * s` into `x * s'` (the 1 in s's activation_affine): the block's Add goes too.
// Returns the number of SqueezeExcite nodes made.
int fuseSqueezeExcite(Graph* graph);

}  // namespace tessera
