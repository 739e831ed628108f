// Compress (opset 9, 11): the slices of `input` along `axis` whose entry in the 1-D bool
// `condition` is true (numpy.compress). Without `axis` the input is flattened first. A
// condition shorter than the axis leaves the rest out (missing entries count as false); a
// longer one is an error. The output's extent on the axis is the count of true entries, so it
// is known at planning only when the condition is constant; otherwise the node's output shape
// comes from its values (ShapeContext::shapesFromValues) and its CPU kernel allocates it.
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct CompressParams {
  bool hasAxis = false;
  int64_t axis = 0;

  static Status parse(const Node& node, CompressParams* out) {
    out->hasAxis = node.attrs.has("axis");
    out->axis = node.attrs.getInt("axis", 0);
    return Status::ok();
  }
};

// The input seen as [outer, extent, inner] around the compressed axis (extent: every element
// when flattened). Fails, naming the node, on an axis outside [-rank, rank).
struct CompressGeometry {
  int64_t outer = 1, extent = 1, inner = 1;
  int axis = 0;  // normalized; 0 when flattened

  static Status make(const Node& node, const CompressParams& p, const Shape& shape, CompressGeometry* g) {
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

  // The output's shape for `kept` selected slices.
  Shape outputShape(const CompressParams& p, const Shape& in, int64_t kept) const {
    if (!p.hasAxis) return {kept};
    Shape s = in;
    s[axis] = kept;
    return s;
  }
};

}  // namespace tessera
