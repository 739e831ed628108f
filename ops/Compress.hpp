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
#include "ops/OptionalAxis.hpp"
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

}  // namespace tessera
