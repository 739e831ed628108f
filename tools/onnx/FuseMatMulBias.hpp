// Graph pass: a MatMul whose product gets a constant vector added, MatMul(A, B) + bias (a
// linear layer as exporters write it: PP-OCRv4 rec's eight), becomes one MatMul with the
// bias as its third input (ops/MatMul.hpp): a dispatch and a pass over the product fewer.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when B is a constant of rank 2 or more, the bias an f32 constant of B's last dim
// (ones before it, and fewer dims than B: it cannot broadcast the product, whatever A's
// rank), and the product is read by the Add alone (not a graph output). Returns the number fused.
int fuseMatMulBias(Graph* graph);

}  // namespace tessera
