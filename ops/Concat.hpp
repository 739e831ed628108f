// Concat: joins inputs of equal rank along one axis.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct ConcatParams {
  int64_t axis = 0;  // may be negative; normalised against the input rank by the users

  static Status parse(const Node& node, ConcatParams* out) {
    if (!node.attrs.has("axis")) return Status::invalid(node.label() + ": attribute 'axis' is required");
    out->axis = node.attrs.getInt("axis", 0);
    return Status::ok();
  }
};

}  // namespace tessera
