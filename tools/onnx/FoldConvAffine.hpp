// Graph pass: a per-channel (or scalar) constant Mul / Add / Sub / Div right after a Conv
// folds into the Conv's weights and bias. PP-OCRv4 puts such an affine after most convs.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Y = Conv(X, W, B) * s  -> Conv(X, W * s[m], B * s[m])      (Div: s = 1 / d)
// Y = Conv(X, W, B) + a  -> Conv(X, W, B + a[m])              (Sub: a = -b)
// when the Conv output feeds only that node (not a graph output), W and B are f32
// initializers, and the constant is f32 with one value or one per output channel on axis 1
// of the Conv output (shape [M, 1, ...] right-aligned, no extra leading dimensions).
// Chains fold one after the other. A ConvTranspose takes an Add or Sub into its bias the
// same way (M = W's second extent times group). Returns the number of nodes folded.
int foldConvAffine(Graph* graph);

}  // namespace tessera
