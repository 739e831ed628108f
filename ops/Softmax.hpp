// Softmax / LogSoftmax. Before opset 13 the input is coerced to 2D at `axis` (default 1)
// and normalised over everything from `axis` on; from opset 13 over the one `axis`
// (default -1).
#pragma once
#include <cstdint>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct SoftmaxParams {
  int64_t axis = -1;
  bool log = false;         // LogSoftmax
  bool flattenTail = false;  // opset < 13: normalise over dims[axis:] as one row

  static Status parse(const Node& node, SoftmaxParams* out) {
    SoftmaxParams p;
    p.log = node.opType == "LogSoftmax";
    p.flattenTail = node.opset < 13;
    p.axis = node.attrs.getInt("axis", p.flattenTail ? 1 : -1);
    *out = p;
    return Status::ok();
  }

  // The input as [outer, n, inner]: normalise over n, with stride inner.
  Status split3(const Node& node, const Shape& s, int64_t* outer, int64_t* n,
                int64_t* inner) const {
    const int64_t rank = static_cast<int64_t>(s.size());
    int64_t a = axis < 0 ? axis + rank : axis;
    // Opset < 13 allows axis == rank (an empty tail); rank 0 is treated as one element.
    const bool ok = rank == 0 ? (axis == 0 || axis == -1)
                              : (a >= 0 && (a < rank || (flattenTail && a == rank)));
    if (!ok)
      return Status::invalid(node.label() + ": axis " + std::to_string(axis) +
                             " is out of range for an input of shape " + shapeToString(s));
    *outer = 1;
    *n = 1;
    *inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < a) *outer *= s[d];
      else if (d == a || flattenTail) *n *= s[d];
      else *inner *= s[d];
    }
    return Status::ok();
  }
};

}  // namespace tessera
