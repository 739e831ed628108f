// Graph pass: Swish after a Conv or a MatMul, y = c * Sigmoid(c) or c * Sigmoid(c * k) (k a
// scalar constant; PaddleOCR's exporter writes k = 1, GELU's sigmoid form k = 1.702), becomes
// its fused activation Swish with alpha k (ops/FusedActivation.hpp): two or three dispatches
// and passes over c fewer. PP-OCRv4 rec has five after convs and two after MatMuls (its
// transformer blocks' MLPs).
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when c is read only by the Sigmoid (or the Mul by k) and the final Mul, the
// intermediates by nothing else, none a graph output, and the Conv has no activation yet.
// Returns the number of Swishes fused.
int fuseConvSwish(Graph* graph);

}  // namespace tessera
