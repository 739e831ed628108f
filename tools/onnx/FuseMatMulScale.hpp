// Graph pass: a MatMul operand scaled by a scalar constant, MatMul(x * k, B) or MatMul(A, x * k)
// (an attention's q * (1 / sqrt(d)); PP-OCRv4 rec has two), or the product itself,
// MatMul(A, B) * k (the scores scaled after q @ k^T, as BERT and ViT exports write it), or
// divided by one, x / k (GPT-2's scores / sqrt(d): alpha takes 1 / k, within an ulp of the
// division),
// becomes MatMul(x, B) or MatMul(A, B) with alpha multiplied by k (ops/MatMul.hpp; not ONNX):
// the product is linear in each operand, so only rounding differs, and the Mul's dispatch and
// pass go.
#pragma once
#include "tessera/Graph.hpp"

namespace tessera {

// Fuses when the Mul's output feeds only the MatMul (not a graph output), or the product feeds
// only the Mul, and k is an f32 initializer of one element and rank 0 or 1 (so it cannot raise
// the rank of x). Run after FuseMatMulBias: alpha scales the product, not the bias, so a
// product with a bias (or an activation) keeps a Mul after it. Returns the number of Muls
// taken in.
int fuseMatMulScale(Graph* graph);

}  // namespace tessera
