// Dropout at inference: the output is the input and the optional mask is all true. The
// ratio (attribute before opset 12, input 1 after) and seed do not matter then; training
// mode (input 2, opset 12+) is not supported.
#pragma once
#include "tessera/DataType.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct DropoutParams {
  // The mask is bool from opset 10 on; before, it has the input's type.
  bool boolMask = true;

  static Status parse(const Node& node, DropoutParams* out);
  DataType maskType(DataType input) const { return boolMask ? DataType::kBool : input; }
};

}  // namespace tessera
