// OneHot (opset 9, 11): output = the indices' shape with a new axis of extent `depth` at
// `axis` (default -1: last; in [-(rank + 1), rank]), holding values[1] (on) where the position
// along it equals the index and values[0] (off) elsewhere; the output has values' dtype.
// Indices of any numeric dtype are truncated to integers; a negative index counts from the
// end (i + depth); one outside [-depth, depth) gives an all-off line (the spec's rule; ONNX's
// reference implementation wraps such indices instead). depth is a one-element input of any
// numeric dtype (truncated), needed to plan (the Session specializes a run-time depth).
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"
#include "tessera/ValueNeeds.hpp"

namespace tessera {

struct OneHotParams {
  int64_t axis = -1;

  static Status parse(const Node& node, OneHotParams* out) {
    out->axis = node.attrs.getInt("axis", -1);
    return Status::ok();
  }

  // The axis in [0, indicesRank], where the depth axis goes.
  Status outputAxis(const Node& node, int64_t indicesRank, int64_t* out) const {
    if (!normalizeAxis(axis, indicesRank + 1, out))
      return Status::invalid(node.label() + ": axis " + std::to_string(axis) +
                             " is out of range for indices of rank " + std::to_string(indicesRank));
    return Status::ok();
  }

  // The value of the depth input: one element, known at planning, positive.
  static Status depth(const Node& node, const Tensor* input, int64_t* out) {
    if (!input) return Status::invalid(node.label() + ": the 'depth' input is missing");
    if (input->elementCount() != 1 || input->rank() > 1)
      return Status::invalid(node.label() + ": depth " + input->describe() + " must be a scalar");
    if (!isFloat(input->dtype()) && !isInteger(input->dtype()))
      return Status::invalid(node.label() + ": depth " + input->describe() + " must be numeric");
    if (!input->data()) {
      noteValueNeeded(input);
      return Status::unsupported(node.label() + ": needs a constant 'depth' input, but " +
                                 input->describe() + " is only known at run time");
    }
    Tensor value = Tensor::hostAllocate({1}, DataType::kI64);
    Tensor source = Tensor::hostWrap(input->data(), {1}, input->dtype());
    convertDataType(source, value);  // floats truncate toward zero
    *out = value.data<int64_t>()[0];
    if (*out <= 0)
      return Status::invalid(node.label() + ": depth " + std::to_string(*out) + " must be positive");
    return Status::ok();
  }
};

}  // namespace tessera
