// The Reduce* family: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceSumSquare, ReduceLogSumExp, ReduceLogSum. The axes are an attribute,
// or an optional input (ReduceSum from opset 13, the others from opset 18). No axes means
// every axis, unless noop_with_empty_axes=1, which makes the op an identity.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSumExp, kLogSum };

struct ReduceParams {
  ReduceKind kind = ReduceKind::kSum;
  std::vector<int64_t> axes;   // from the attribute (when the axes are not an input)
  bool axesFromInput = false;  // opset >= 13 for ReduceSum, >= 18 for the others
  bool keepDims = true;
  bool noopWithEmptyAxes = false;

  // False when `opType` is not a Reduce* op.
  static bool kindOf(const std::string& opType, ReduceKind* kind);
  static Status parse(const Node& node, ReduceParams* out);
};

// Which input dimensions are reduced. `*identity` is true when no axes were given and
// noop_with_empty_axes is set (the output is then the input).
Status resolveReduceAxes(const Node& node, const ReduceParams& p, const Shape& input,
                         const Tensor* axesInput, std::vector<bool>* reduced, bool* identity);

// The output shape: reduced dims become 1 (keepdims) or disappear.
Shape reducedShape(const Shape& input, const std::vector<bool>& reduced, bool keepDims);

}  // namespace tessera
