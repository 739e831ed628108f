#include "backends/cpu/Broadcast.hpp"

namespace tessera {

bool BroadcastPlan::init(const std::vector<Shape>& inputs) {
  numInputs_ = static_cast<int>(inputs.size());
  if (numInputs_ < 1 || numInputs_ > kMaxInputs) return false;
  Shape out = inputs[0];
  for (int i = 1; i < numInputs_; ++i) {
    if (!broadcastShapes(out, inputs[i], &out)) return false;
  }
  outShape_ = out;
  outCount_ = elementCount(out);
  const size_t rank = out.size();

  // Each input aligned to the output rank: extents and contiguous strides (0 if broadcast).
  std::vector<std::vector<int64_t>> strides(numInputs_, std::vector<int64_t>(rank, 0));
  for (int i = 0; i < numInputs_; ++i) {
    const Shape& s = inputs[i];
    const size_t pad = rank - s.size();
    int64_t stride = 1;
    for (size_t d = rank; d-- > pad;) {
      const int64_t extent = s[d - pad];
      strides[i][d] = (extent == 1 && out[d] != 1) ? 0 : stride;
      stride *= extent;
    }
  }

  // Collapse: skip extents of 1; merge a dimension into the previous kept one when every
  // input's stride continues it (stride_outer == stride_inner * extent_inner, 0 stays 0).
  rank_ = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool merge = rank_ > 0;
    for (int i = 0; merge && i < numInputs_; ++i) {
      const int64_t outer = strides_[i][rank_ - 1];
      const int64_t inner = strides[i][d];
      merge = (outer == 0 && inner == 0) || (inner != 0 && outer == inner * out[d]);
    }
    if (merge) {
      dims_[rank_ - 1] *= out[d];
      for (int i = 0; i < numInputs_; ++i) strides_[i][rank_ - 1] = strides[i][d];
      continue;
    }
    if (rank_ == kMaxRank) return false;
    dims_[rank_] = out[d];
    for (int i = 0; i < numInputs_; ++i) strides_[i][rank_] = strides[i][d];
    ++rank_;
  }
  return true;
}

}  // namespace tessera
