// ArgMax / ArgMin: int64 index of the extreme value along one axis. Ties give the first
// index, or the last with select_last_index=1.
#pragma once
#include <cstdint>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
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

  // `s` seen as [outer, n, inner] around the axis (the lines searched); false for an axis
  // out of range.
  bool split(const Shape& s, int64_t* outer, int64_t* n, int64_t* inner) const {
    int64_t a = 0;
    if (!normalizeAxis(axis, static_cast<int64_t>(s.size()), &a)) return false;
    *outer = *inner = 1;
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d)
      if (d != a) *(d < a ? outer : inner) *= s[d];
    *n = s[a];
    return true;
  }
};

}  // namespace tessera
