// GatherElements: out[i] = data[i with its `axis` coordinate replaced by indices[i]]
// (negative indices count from the end). indices has data's rank; each of its extents may be
// at most data's except on `axis` (ONNX does not require it; a larger one would read outside
// data, so it is rejected). The output has indices' shape and data's dtype.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct GatherElementsParams {
  int64_t axis = 0;

  static Status parse(const Node& node, GatherElementsParams* out) {
    out->axis = node.attrs.getInt("axis", 0);
    return Status::ok();
  }
};

}  // namespace tessera
