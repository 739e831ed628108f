#include "ops/Dropout.hpp"

namespace tessera {

Status DropoutParams::parse(const Node& node, DropoutParams* out) {
  DropoutParams p;
  p.boolMask = node.opset >= 10;
  if (node.opset < 7 && node.attrs.getInt("is_test", 0) == 0) {
    return Status::unsupported(node.label() + ": training mode (is_test = 0) is not supported");
  }
  *out = p;
  return Status::ok();
}

}  // namespace tessera
