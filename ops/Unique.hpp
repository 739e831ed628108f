// Unique (opset 11): the distinct elements of the flattened input, or with `axis` the distinct
// slices along it (compared element-wise, ordered lexicographically). Outputs: Y (the
// distinct values or slices), and int64 indices (each one's first occurrence in the input),
// inverse_indices (for each input element or slice, its position in Y) and counts; any
// output but Y may be omitted. sorted=1 (default) orders Y ascending; sorted=0 keeps the
// order of first occurrence. Their lengths depend on the values (shapesFromValues).
//
// Floats follow numpy.unique (>= 1.24, which the ONNX reference calls): -0.0 equals 0.0 (Y
// keeps the first one met); NaN sorts after every number. Flattened, all NaNs are one value
// (numpy's equal_nan); along an axis, a slice holding a NaN equals no other (numpy compares
// slices with ==), so each such slice is its own entry.
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct UniqueParams {
  bool sorted = true;
  bool hasAxis = false;
  int64_t axis = 0;

  static Status parse(const Node& node, UniqueParams* out) {
    const int64_t s = node.attrs.getInt("sorted", 1);
    if (s != 0 && s != 1) return Status::invalid(node.label() + ": sorted " + std::to_string(s) + " is not 0 or 1");
    out->sorted = s == 1;
    out->hasAxis = node.attrs.has("axis");
    out->axis = node.attrs.getInt("axis", 0);
    return Status::ok();
  }
};

// The input seen as [outer, extent, inner]: `extent` slices of outer x inner elements each
// (flattened: extent single elements). Fails, naming the node, on an axis outside [-rank, rank).
struct UniqueGeometry {
  int64_t outer = 1, extent = 1, inner = 1;
  int axis = 0;  // normalized; 0 when flattened

  static Status make(const Node& node, const UniqueParams& p, const Shape& shape, UniqueGeometry* g) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (!p.hasAxis) {
      g->extent = elementCount(shape);
      return Status::ok();
    }
    if (p.axis < -rank || p.axis >= rank)
      return Status::invalid(node.label() + ": axis " + std::to_string(p.axis) + " is out of range for an input of rank " +
                             std::to_string(rank));
    g->axis = static_cast<int>(p.axis < 0 ? p.axis + rank : p.axis);
    for (int d = 0; d < g->axis; ++d) g->outer *= shape[d];
    g->extent = shape[g->axis];
    for (int64_t d = g->axis + 1; d < rank; ++d) g->inner *= shape[d];
    return Status::ok();
  }

  // Y's shape for `count` distinct entries.
  Shape outputShape(const UniqueParams& p, const Shape& in, int64_t count) const {
    if (!p.hasAxis) return {count};
    Shape s = in;
    s[axis] = count;
    return s;
  }
};

}  // namespace tessera
