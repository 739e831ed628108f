// MatMul (numpy matmul): batched over leading dimensions with broadcasting; a 1-D A is a
// row vector and a 1-D B a column vector, their unit dimension removed from the result.
// Not ONNX: an optional third input, a bias of N values added to every output row (set by the
// import pass tools/onnx/FuseMatMulBias from MatMul -> Add; every backend's MatMul adds it
// as it writes the product), and a fused activation after it (ops/FusedActivation.hpp's
// attributes without the affine, set by FuseConvActivation and FuseConvSwish: a
// transformer's MLP, MatMul -> Swish, is one step). Also not ONNX: `transB` = 1 says B is
// stored with its last two dims swapped (the import pass tools/onnx/FuseTransposeMatMul takes
// the Transpose an attention's q @ k^T reads k through); matMulB gives the B it stands for.
// And `alpha` (default 1) scales the product before the bias: y = act(alpha * A B + bias)
// (tools/onnx/FuseMatMulScale takes an attention's q * (1 / sqrt(d)) in). Last, an optional
// fourth input Z of exactly the output's shape, added after the bias and before the
// activation, y = act(alpha * A B + bias + Z) (tools/onnx/FuseMatMulAdd: a transformer's
// residual sum after its projection and its MLP; Conv's Z likewise).
#pragma once
#include <cstdint>

#include "tessera/Backend.hpp"
#include "tessera/Graph.hpp"

#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct MatMulShape {
  int64_t M = 1, K = 1, N = 1;
  Shape batch;   // broadcast batch dimensions of the result
  Shape aBatch;  // A's batch dimensions (possibly fewer than batch)
  Shape bBatch;
  Shape output;  // the result's shape
};

// Messages do not name the node; callers add it.
Status resolveMatMul(const Shape& a, const Shape& b, MatMulShape* out);

// Input indices of MatMul's optional bias and residual Z (see above).
constexpr size_t kMatMulBiasInput = 2;
constexpr size_t kMatMulResidualInput = 3;

// MatMul's transB and alpha attributes (see above).
bool matMulTransB(const Node& node);
float matMulAlpha(const Node& node);
// The shape of the B that `node` multiplies by, from B's stored shape (its last two dims
// swapped when transB; unchanged for a 1-D B, which the shape function rejects with transB).
Shape matMulB(const Shape& stored, bool transB);
inline Shape matMulB(const Node& node, const Shape& stored) { return matMulB(stored, matMulTransB(node)); }

// Work of MatMul/Gemm for profiles: each output element is a dot product of length k.
inline WorkEstimate matMulWork(const Tensors& in, const Tensors& out, int64_t k) {
  WorkEstimate e;
  e.flops = 2.0 * static_cast<double>(k) * static_cast<double>(out[0]->elementCount());
  for (const Tensor* t : in) if (t) e.bytes += static_cast<double>(t->byteSize());
  e.bytes += static_cast<double>(out[0]->byteSize());
  return e;
}

}  // namespace tessera
