// DepthToSpace / SpaceToDepth: move blocksize x blocksize patches between the channel
// dimension and the spatial ones (NCHW, rank 4). DepthToSpace reads channels in DCR
// (depth-column-row, the default) or CRD (column-row-depth) order.
#pragma once
#include <cstdint>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct DepthToSpaceParams {
  int64_t blockSize = 0;
  bool crd = false;  // mode "CRD" (else "DCR")

  static Status parse(const Node& node, DepthToSpaceParams* out) {
    DepthToSpaceParams p;
    p.blockSize = node.attrs.getInt("blocksize", 0);
    if (p.blockSize < 1)
      return Status::invalid(node.label() + ": attribute 'blocksize' must be given and >= 1");
    const std::string mode = node.attrs.getString("mode", "DCR");
    if (mode != "DCR" && mode != "CRD")
      return Status::invalid(node.label() + ": mode '" + mode + "' is not DCR or CRD");
    p.crd = mode == "CRD";
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
