// TopK: the k largest (or smallest) values along an axis and their int64 indices. k is an
// attribute before opset 10 and a constant 1-element input from opset 10. Equal values
// keep the lower index first.
#pragma once
#include <cstdint>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct TopKParams {
  int64_t axis = -1;
  bool largest = true;
  bool sorted = true;  // unsorted output is allowed to be sorted anyway, and is here
  int64_t k = -1;      // opset < 10 only

  static Status parse(const Node& node, TopKParams* out) {
    TopKParams p;
    p.axis = node.attrs.getInt("axis", -1);
    p.largest = node.attrs.getInt("largest", 1) != 0;
    p.sorted = node.attrs.getInt("sorted", 1) != 0;
    if (node.opset < 10) {
      if (!node.attrs.has("k")) return Status::invalid(node.label() + ": attribute 'k' is required");
      p.k = node.attrs.getInt("k", 0);
    }
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
