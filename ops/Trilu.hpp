// Trilu: keeps the upper (upper = 1, the default) or lower triangle of each matrix in the
// last two dims and zeroes the rest. Element (i, j) is kept when j - i >= k (upper) or
// j - i <= k (lower); k is the optional scalar int64 input 1 (default 0), read when the op
// runs. The output has the input's shape and dtype.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct TriluParams {
  bool upper = true;

  static Status parse(const Node& node, TriluParams* out) {
    out->upper = node.attrs.getInt("upper", 1) != 0;
    return Status::ok();
  }
};

}  // namespace tessera
