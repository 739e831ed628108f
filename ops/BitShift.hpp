// BitShift (opset 11): X shifted by Y bits, elementwise with numpy broadcasting, on unsigned
// integers. `direction` (required) is "LEFT" or "RIGHT". Bits shifted out are lost, so a
// shift by the bit width or more gives 0 (C leaves it undefined).
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct BitShiftParams {
  bool left = true;

  static Status parse(const Node& node, BitShiftParams* out) {
    if (!node.attrs.has("direction"))
      return Status::invalid(node.label() + ": the 'direction' attribute (LEFT or RIGHT) is required");
    const std::string d = node.attrs.getString("direction", "");
    if (d != "LEFT" && d != "RIGHT")
      return Status::invalid(node.label() + ": direction '" + d + "' is not LEFT or RIGHT");
    out->left = d == "LEFT";
    return Status::ok();
  }
};

}  // namespace tessera
