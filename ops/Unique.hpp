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
#include "ops/OptionalAxis.hpp"
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

}  // namespace tessera
