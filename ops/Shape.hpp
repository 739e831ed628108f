// Shape: the input's extents as a 1-D int64 tensor, optionally the slice [start, end) of
// them (opset 15; negative values count from the end, then both are clamped to the rank).
#pragma once
#include <cstdint>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct ShapeParams {
  int64_t start = 0;
  int64_t end = INT64_MAX;  // past the last dimension when absent

  static Status parse(const Node& node, ShapeParams* out);
  // The clamped [begin, end) for an input of this rank.
  void range(int64_t rank, int64_t* begin, int64_t* end) const;
};

}  // namespace tessera
