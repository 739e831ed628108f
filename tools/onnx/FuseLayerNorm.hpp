// Graph pass: layer normalization written out in elementary ops, as exporters without a
// LayerNormalization op emit it (PaddleOCR's PP-OCRv4 rec, five times):
//   m = ReduceMean(x, last axis)   d = x - m   v = ReduceMean(d^2)   (d^2: Pow(d, 2) or d * d)
//   y = d / Sqrt(v + eps) * gamma [+ beta]
// becomes one LayerNormalization(x, gamma, beta; axis -1, epsilon eps): nine steps, each a
// GPU dispatch and a pass over x, become one.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when every intermediate feeds only the next step of the pattern (none a graph
// output), eps is a scalar constant, and gamma and beta are constants of x's last dim (ones
// before it): checked where x's shape is known at import; where it is not, gamma and beta
// must be 1-D, and an x whose last dim is not theirs fails planning with LayerNormalization's
// shape error (the written-out form would broadcast a layer norm over one element).
// Returns the number of LayerNormalization nodes made.
int fuseLayerNorm(Graph* graph);

}  // namespace tessera
