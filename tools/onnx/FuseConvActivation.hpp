// Graph pass: an activation right after a Conv, ConvTranspose or MatMul (Relu, Clip with
// constant bounds, LeakyRelu, Sigmoid, HardSigmoid, HardSwish) becomes its fused activation
// (ops/FusedActivation.hpp, ONNX Runtime's FusedConv attributes), applied by every backend's
// Conv, ConvTranspose and MatMul as it writes its output: one dispatch / memory pass fewer
// per pair (a segmentation head's ConvTranspose -> Relu and ConvTranspose -> Sigmoid, an
// MLP's MatMul -> Relu).
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when the conv's output feeds only the activation (not a graph output) and the Conv
// has no fused activation yet. Returns the number of activations fused.
int fuseConvActivation(Graph* graph);

}  // namespace tessera
