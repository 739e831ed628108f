// Flatten: to 2D, [product of dims before axis, product of the rest]. axis in [-r, r].
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct FlattenParams {
  int64_t axis = 1;

  static Status parse(const Node& node, FlattenParams* out) {
    out->axis = node.attrs.getInt("axis", 1);
    return Status::ok();
  }
};

}  // namespace tessera
