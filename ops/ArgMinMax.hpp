// ArgMax / ArgMin: int64 index of the extreme value along one axis. Ties give the first
// index, or the last with select_last_index=1.
#pragma once
#include <cstdint>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct ArgMinMaxParams {
  bool max = true;  // ArgMax (else ArgMin)
  int64_t axis = 0;
  bool keepDims = true;
  bool selectLastIndex = false;

  static Status parse(const Node& node, ArgMinMaxParams* out) {
    ArgMinMaxParams p;
    p.max = node.opType == "ArgMax";
    p.axis = node.attrs.getInt("axis", 0);
    p.keepDims = node.attrs.getInt("keepdims", 1) != 0;
    p.selectLastIndex = node.attrs.getInt("select_last_index", 0) != 0;
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
