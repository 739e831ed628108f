// Gather: picks slices of `data` along an axis by (possibly negative) indices.
// Output shape: data[:axis] + indices.shape + data[axis+1:].
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct GatherParams {
  int64_t axis = 0;

  static Status parse(const Node& node, GatherParams* out) {
    out->axis = node.attrs.getInt("axis", 0);
    return Status::ok();
  }
};

}  // namespace tessera
