#include "ops/Clip.hpp"

namespace tessera {

Status ClipParams::parse(const Node& node, ClipParams* out) {
  ClipParams p;
  p.boundsFromInputs = node.opset >= 11;
  if (!p.boundsFromInputs) {
    p.minAttr = node.attrs.getFloat("min", p.minAttr);
    p.maxAttr = node.attrs.getFloat("max", p.maxAttr);
  }
  *out = p;
  return Status::ok();
}

}  // namespace tessera
