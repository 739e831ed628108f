// Constant: a host tensor from exactly one of the attributes value (a tensor), value_float,
// value_floats, value_int, value_ints. Strings and sparse tensors are not supported.
#pragma once
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct ConstantParams {
  Tensor value;  // host data, plain layout

  static Status parse(const Node& node, ConstantParams* out);
};

}  // namespace tessera
