// Graph pass: MatMul(A, Transpose(B)) with the Transpose swapping B's last two dims (an
// attention's q @ k^T; PP-OCRv4 rec has two) becomes MatMul(A, B) with transB = 1
// (ops/MatMul.hpp; not ONNX): every backend reads B across instead of down, and the
// Transpose's dispatch and its pass over B go.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when the Transpose's output feeds only that MatMul's B (not a graph output), its perm
// keeps every dim but the last two (or, for rank 2, is absent: the reversal), and the MatMul
// has no transB yet. Returns the number of Transposes taken in.
int fuseTransposeMatMul(Graph* graph);

}  // namespace tessera
