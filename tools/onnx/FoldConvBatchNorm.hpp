// Graph pass: folds an inference-mode BatchNormalization into the Conv or ConvTranspose
// that feeds it.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

// Y = BN(Conv(X, W, B)) becomes Y = Conv(X, W', B') with
//   s = scale / sqrt(var + epsilon),  W'[m] = W[m] * s[m],  B' = (B - mean) * s + bias
// (W[m]: output channel m's weights; ConvTranspose keeps them along W's second axis).
// when the Conv output feeds only that BN (and is not a graph output), W, B and all BN
// parameters are f32 initializers of matching sizes, and the BN is in inference mode.
// The BN node is removed; initializers no node uses any more are dropped. `folded`, when
// given, receives the number of BN nodes removed.
Status foldConvBatchNorm(Graph* graph, int* folded = nullptr);

}  // namespace tessera
