// CumSum (opset 11, 14): running sums of x along `axis`, a scalar (or one-element) int32/int64
// input in [-rank, rank). exclusive = 1 leaves out the element itself (the first sum is 0);
// reverse = 1 sums from the end of the axis. The output has x's shape and dtype.
// The axis is needed to plan (the Session specializes a run-time axis on its value).
#pragma once
#include <string>
#include <vector>

#include "ops/ConstantIntInput.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct CumSumParams {
  bool exclusive = false;
  bool reverse = false;

  static Status parse(const Node& node, CumSumParams* out) {
    out->exclusive = node.attrs.getInt("exclusive", 0) != 0;
    out->reverse = node.attrs.getInt("reverse", 0) != 0;
    return Status::ok();
  }

  // The axis input's value, normalized to [0, rank) for data of the given rank.
  static Status axis(const Node& node, const Tensor* axisInput, int64_t rank, int64_t* out) {
    std::vector<int64_t> values;
    TESSERA_RETURN_IF_ERROR(constantIntInput(node, axisInput, "axis", &values));
    if (values.size() != 1 || axisInput->rank() > 1)
      return Status::invalid(node.label() + ": the 'axis' input " + axisInput->describe() +
                             " must be a scalar");
    if (!normalizeAxis(values[0], rank, out))
      return Status::invalid(node.label() + ": axis " + std::to_string(values[0]) +
                             " is out of range for data of rank " + std::to_string(rank));
    return Status::ok();
  }
};

}  // namespace tessera
