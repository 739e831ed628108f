// Graph pass: x + x * s, where s is the output of a Conv with a fused activation (an
// attention or squeeze-excitation scale), becomes x * (s + 1): the 1 joins the activation's
// shift (`activation_affine`, ops/FusedActivation.hpp) and the Add goes, one dispatch and one
// pass over x fewer. PP-OCRv4 det's RSE blocks (x * HardSigmoid(...) added back to x) are
// eight of its Adds.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when the Mul's output feeds only the Add and s feeds only the Mul (neither a graph
// output); broadcasting between x and s is fine (both sides broadcast alike). Returns the
// number of Adds removed.
int fuseResidualScale(Graph* graph);

}  // namespace tessera
