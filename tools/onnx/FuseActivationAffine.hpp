// Graph pass: a constant scalar Mul / Div / Add / Sub after a Conv's fused activation becomes
// the activation's scale and shift (`activation_affine`, ops/FusedActivation.hpp), applied by
// every backend's Conv as it writes its output. PP-LCNet backbones (PP-OCRv4 det and rec)
// follow each activation with a learnable scale and bias: two full memory passes per conv.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Runs after fuseConvActivation. Fuses when the Conv output feeds only the op (not a graph
// output); a chain (Mul then Add) folds one link per sweep. Returns the number of ops fused.
int fuseActivationAffine(Graph* graph);

}  // namespace tessera
