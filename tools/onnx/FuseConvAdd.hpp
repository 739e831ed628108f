// Graph pass: an Add of a Conv's output and a tensor of exactly its shape becomes the Conv's
// Z input (ops/Conv.hpp: Y = activation(conv(X) + B + Z)), which every backend's Conv adds as
// it writes its output: the residual and feature-pyramid sums after a conv cost no dispatch
// and no pass over memory of their own. A MatMul's likewise (ops/MatMul.hpp's Z: a
// transformer's residual sums after its attention projection and its MLP), and a Resize's
// (ops/Resize.hpp's Z: a feature pyramid's upsampled map plus its lateral one). Runs after
// FuseMatMulBias and FuseMatMulScale, and before FuseConvActivation, so an activation after
// the Add is fused after the sum (ONNX Runtime's FusedConv order).
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when the Conv, MatMul or Resize has no fused activation and no Z yet, its output
// feeds only the Add (not a graph output), and both operands' shapes are known at import and
// equal (no broadcasting: KnownShapes.hpp). Returns the number of Adds fused.
int fuseConvAdd(Graph* graph);

}  // namespace tessera
