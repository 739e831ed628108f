// Reshape: same elements, new shape from the 'shape' input (opset 5+) or attribute
// (opset 1). 0 copies the input extent (unless allowzero=1, opset 14+), -1 is inferred.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct ReshapeParams {
  bool allowZero = false;
  std::vector<int64_t> shape;  // opset < 5 only

  static Status parse(const Node& node, ReshapeParams* out) {
    ReshapeParams p;
    p.allowZero = node.attrs.getInt("allowzero", 0) != 0;
    if (node.opset < 5) p.shape = node.attrs.getInts("shape");
    *out = p;
    return Status::ok();
  }
};

// The output shape for `input` given the requested shape values.
Status resolveReshape(const Node& node, const ReshapeParams& p, const Shape& input,
                      const std::vector<int64_t>& requested, Shape* out);

}  // namespace tessera
