// Split: cuts one input into several outputs along an axis. The part sizes come from the
// 'split' attribute (opset < 13), the optional 'split' input (opset >= 13), the
// 'num_outputs' attribute (opset 18), or else equal parts, one per output.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct SplitParams {
  int64_t axis = 0;
  std::vector<int64_t> split;  // from the attribute (opset < 13); empty when not given
  int64_t numOutputs = 0;      // from 'num_outputs' (opset 18); 0 when not given

  static Status parse(const Node& node, SplitParams* out);
};

// The extent of each output along the axis. `splitInput` is input 1 (nullptr if omitted);
// `outputCount` the number of outputs the node has.
Status resolveSplitSizes(const Node& node, const SplitParams& p, const Shape& input,
                         const Tensor* splitInput, size_t outputCount, int64_t* axis,
                         std::vector<int64_t>* sizes);

}  // namespace tessera
