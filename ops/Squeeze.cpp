#include "ops/Squeeze.hpp"

#include "ops/ConstantIntInput.hpp"

namespace tessera {

Status squeezeAxes(const Node& node, const SqueezeParams& p, const Tensor* axesInput,
                   std::vector<int64_t>* axes, bool* present) {
  if (node.opset < 13) {
    *axes = p.axes;
    *present = node.attrs.has("axes");
    return Status::ok();
  }
  *present = axesInput != nullptr;
  if (!axesInput) {
    axes->clear();
    return Status::ok();
  }
  return constantIntInput(node, axesInput, "axes", axes);
}

}  // namespace tessera
