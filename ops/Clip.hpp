// Clip: y = min(max(x, min), max). Before opset 11 the bounds are float attributes; from
// opset 11 on they are optional scalar inputs 1 and 2 (any numeric type, x's type).
#pragma once
#include <limits>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct ClipParams {
  bool boundsFromInputs = true;  // opset >= 11
  // Only for opset < 11; the defaults leave that side open.
  float minAttr = std::numeric_limits<float>::lowest();
  float maxAttr = std::numeric_limits<float>::max();

  static Status parse(const Node& node, ClipParams* out);
};

}  // namespace tessera
