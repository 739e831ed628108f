// Gemm: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A, B' likewise; C broadcasts
// (unidirectionally) to Y's [M, N].
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct GemmParams {
  float alpha = 1.f;
  float beta = 1.f;
  bool transA = false;
  bool transB = false;

  static Status parse(const Node& node, GemmParams* out) {
    GemmParams p;
    p.alpha = node.attrs.getFloat("alpha", 1.f);
    p.beta = node.attrs.getFloat("beta", 1.f);
    p.transA = node.attrs.getInt("transA", 0) != 0;
    p.transB = node.attrs.getInt("transB", 0) != 0;
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
