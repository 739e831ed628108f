// An input seen as [outer, extent, inner] around an optional axis attribute (Compress,
// Unique): without the axis the input is flattened (extent = every element).
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct OptionalAxisGeometry {
  int64_t outer = 1, extent = 1, inner = 1;
  int axis = 0;  // normalized; 0 when flattened

  // Fails, naming the node, on an axis outside [-rank, rank).
  static Status make(const Node& node, bool hasAxis, int64_t axis, const Shape& shape, OptionalAxisGeometry* g) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (!hasAxis) {
      g->extent = elementCount(shape);
      return Status::ok();
    }
    if (axis < -rank || axis >= rank)
      return Status::invalid(node.label() + ": axis " + std::to_string(axis) + " is out of range for an input of rank " +
                             std::to_string(rank));
    g->axis = static_cast<int>(axis < 0 ? axis + rank : axis);
    for (int d = 0; d < g->axis; ++d) g->outer *= shape[d];
    g->extent = shape[g->axis];
    for (int64_t d = g->axis + 1; d < rank; ++d) g->inner *= shape[d];
    return Status::ok();
  }

  // The output's shape when `count` of the extent's entries are kept.
  Shape outputShape(bool hasAxis, const Shape& in, int64_t count) const {
    if (!hasAxis) return {count};
    Shape s = in;
    s[axis] = count;
    return s;
  }
};

}  // namespace tessera
