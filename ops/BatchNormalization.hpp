// BatchNormalization (inference): y = (x - mean) / sqrt(var + epsilon) * scale + B per channel.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct BatchNormalizationParams {
  float epsilon = 1e-5f;

  static Status parse(const Node& node, BatchNormalizationParams* out) {
    BatchNormalizationParams p;
    p.epsilon = node.attrs.getFloat("epsilon", 1e-5f);
    if (node.attrs.getInt("training_mode", 0) != 0)
      return Status::unsupported(node.label() + ": training_mode=1 is not supported (inference only)");
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
