// Squeeze / Unsqueeze: remove or insert extent-1 dimensions. The axes are an attribute
// before opset 13 and an input from opset 13 (optional for Squeeze: none = all 1s).
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct SqueezeParams {
  std::vector<int64_t> axes;  // opset < 13 only

  static Status parse(const Node& node, SqueezeParams* out) {
    out->axes = node.opset < 13 ? node.attrs.getInts("axes") : std::vector<int64_t>{};
    return Status::ok();
  }
};

// The axes to remove (Squeeze) or insert (Unsqueeze), from the attribute or input 1.
// `present` is false when none were given at all.
Status squeezeAxes(const Node& node, const SqueezeParams& p, const Tensor* axesInput,
                   std::vector<int64_t>* axes, bool* present);

}  // namespace tessera
