// GatherND: with b = batch_dims, indices [..., k] (its first b extents equal data's, 1 <= k <=
// rank(data) - b) name slices data[batch..., i0..ik-1, :...]; the output has shape
// indices.shape[:-1] + data.shape[b + k:] and data's dtype. Negative indices count from the
// end; one outside [-extent, extent) is an error.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct GatherNDParams {
  int64_t batchDims = 0;

  static Status parse(const Node& node, GatherNDParams* out) {
    out->batchDims = node.attrs.getInt("batch_dims", 0);
    if (out->batchDims < 0)
      return Status::invalid(node.label() + ": batch_dims " + std::to_string(out->batchDims) + " is negative");
    return Status::ok();
  }
};

}  // namespace tessera
