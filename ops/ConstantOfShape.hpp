// ConstantOfShape: a tensor of the shape given by input 0 (1-D int64), every element the
// single value of the `value` tensor attribute (f32 0 by default, which also sets the dtype).
#pragma once
#include <cstdint>

#include "tessera/DataType.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct ConstantOfShapeParams {
  DataType dtype = DataType::kF32;
  uint8_t valueBytes[8] = {};  // the fill value in dtype's representation

  static Status parse(const Node& node, ConstantOfShapeParams* out);
};

}  // namespace tessera
