// LayerNormalization: x normalised over the dimensions from `axis` on, then
// y = normalised * Scale + B (Scale and B broadcast to those dimensions). Optional outputs
// Mean and InvStdDev have x's shape with the normalised dimensions set to 1.
#pragma once
#include <cstdint>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct LayerNormalizationParams {
  int64_t axis = -1;
  float epsilon = 1e-5f;

  static Status parse(const Node& node, LayerNormalizationParams* out) {
    LayerNormalizationParams p;
    p.axis = node.attrs.getInt("axis", -1);
    p.epsilon = node.attrs.getFloat("epsilon", 1e-5f);
    // stash_type names the precision of the statistics; they are always accumulated in
    // double here, which meets every choice.
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
