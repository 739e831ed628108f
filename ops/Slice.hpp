// Slice: a strided window of the input. Opset 1 takes starts/ends/axes as attributes;
// opset 10+ takes them (and steps) as inputs 1..4, which must be constant here.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

struct SliceParams {
  // Opset < 10 only.
  std::vector<int64_t> starts, ends, axes;

  static Status parse(const Node& node, SliceParams* out);
};

// The window on every input dimension, after negative indices and clamping:
// output extent counts[d], reading from starts[d] with step steps[d].
struct SliceWindow {
  std::vector<int64_t> starts, steps, counts;
};

// `sliceInputs` are the node's inputs 1..4 (starts, ends, axes, steps; nullptr if omitted).
Status resolveSlice(const Node& node, const SliceParams& p, const Shape& input,
                    const std::vector<const Tensor*>& sliceInputs, SliceWindow* out);

}  // namespace tessera
