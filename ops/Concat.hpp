// Concat: joins inputs of equal rank along one axis.
#pragma once
#include "tessera/Backend.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct ConcatParams {
  int64_t axis = 0;  // may be negative; normalised against the input rank by the users

  static Status parse(const Node& node, ConcatParams* out) {
    if (!node.attrs.has("axis")) return Status::invalid(node.label() + ": attribute 'axis' is required");
    out->axis = node.attrs.getInt("axis", 0);
    return Status::ok();
  }
};

// The GPU backends' NC4HW4 Concat along channels (axis 1) reads two to four inputs in one
// kernel (Vulkan concat_channels.comp, OpenCL concat_channels.cl: four bindings); with more,
// or an empty input, each input is a copy of its own.
constexpr size_t kConcatInputsInOneKernel = 4;
inline bool concatInOneKernel(const Tensors& inputs, int64_t axis) {
  if (axis != 1 || inputs.size() < 2 || inputs.size() > kConcatInputsInOneKernel) return false;
  for (const Tensor* t : inputs)
    if (t->elementCount() == 0) return false;
  return true;
}

}  // namespace tessera
