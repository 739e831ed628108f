// LRN (local response normalisation across channels):
// y = x / (bias + alpha / size * sum of x^2 over the `size` nearest channels) ^ beta.
#pragma once
#include <cstdint>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct LRNParams {
  float alpha = 1e-4f;
  float beta = 0.75f;
  float bias = 1.f;
  int64_t size = 0;

  static Status parse(const Node& node, LRNParams* out) {
    LRNParams p;
    p.alpha = node.attrs.getFloat("alpha", 1e-4f);
    p.beta = node.attrs.getFloat("beta", 0.75f);
    p.bias = node.attrs.getFloat("bias", 1.f);
    p.size = node.attrs.getInt("size", 0);
    if (p.size < 1) return Status::invalid(node.label() + ": attribute size is required and must be positive");
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
