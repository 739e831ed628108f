// InstanceNormalization: each (n, c) plane normalised by its own mean and variance, then
// y = normalised * scale[c] + B[c].
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct InstanceNormalizationParams {
  float epsilon = 1e-5f;

  static Status parse(const Node& node, InstanceNormalizationParams* out) {
    out->epsilon = node.attrs.getFloat("epsilon", 1e-5f);
    return Status::ok();
  }
};

}  // namespace tessera
