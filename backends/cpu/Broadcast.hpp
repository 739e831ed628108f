// Numpy-style (multidirectional) broadcasting for CPU elementwise kernels.
//
// A BroadcastPlan maps every output element to an element of each input. It first aligns
// the input shapes to the output rank, drops extents of 1 and merges neighbouring
// dimensions that every input treats alike (all present, or broadcast), so the common cases
// collapse to one or two dimensions: same shape -> one contiguous span; a per-channel bias
// -> spans of H*W where the bias is a scalar. Kernels then see "spans": a run of output
// elements along which each input either advances by one or stays on one element.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tessera/Shape.hpp"

namespace tessera {

class BroadcastPlan {
 public:
  static constexpr int kMaxInputs = 3;
  static constexpr int kMaxRank = 16;

  // False when the shapes do not broadcast together (or more than kMaxInputs inputs, or a
  // collapsed rank past kMaxRank, which no real model reaches).
  bool init(const std::vector<Shape>& inputs);

  const Shape& outputShape() const { return outShape_; }
  int64_t outputCount() const { return outCount_; }
  int inputCount() const { return numInputs_; }
  // The length of the innermost (collapsed) dimension: spans never cross it.
  int64_t rowLength() const { return rank_ ? dims_[rank_ - 1] : 1; }
  // 1 when input i advances along a span, 0 when it is broadcast along it.
  int64_t spanStride(int i) const { return rank_ ? strides_[i][rank_ - 1] : 0; }

  // Calls fn(outOffset, inOffsets, count) for consecutive spans covering output elements
  // [begin, end); inOffsets[i] is input i's element offset at the span's start. Input i
  // moves by spanStride(i) per element within the span.
  template <typename Fn>
  void forEachSpan(int64_t begin, int64_t end, Fn&& fn) const;

 private:
  Shape outShape_;
  int64_t outCount_ = 0;
  int numInputs_ = 0;
  int rank_ = 0;  // collapsed rank; 0 when the output has a single element
  int64_t dims_[kMaxRank] = {};
  int64_t strides_[kMaxInputs][kMaxRank] = {};  // element strides, 0 where broadcast
};

template <typename Fn>
void BroadcastPlan::forEachSpan(int64_t begin, int64_t end, Fn&& fn) const {
  int64_t offsets[kMaxInputs] = {0, 0, 0};
  if (begin >= end) return;
  if (rank_ == 0) {  // a single output element
    fn(int64_t{0}, static_cast<const int64_t*>(offsets), int64_t{1});
    return;
  }
  const int last = rank_ - 1;
  const int64_t rowLen = dims_[last];
  // Multi-index of `begin` over the outer dimensions, and each input's row base offset.
  int64_t index[kMaxRank] = {};
  int64_t base[kMaxInputs] = {0, 0, 0};
  int64_t row = begin / rowLen;
  int64_t col = begin % rowLen;
  for (int d = last - 1; d >= 0; --d) {
    index[d] = row % dims_[d];
    row /= dims_[d];
    for (int i = 0; i < numInputs_; ++i) base[i] += index[d] * strides_[i][d];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t count = std::min(rowLen - col, end - pos);
    for (int i = 0; i < numInputs_; ++i) offsets[i] = base[i] + col * strides_[i][last];
    fn(pos, static_cast<const int64_t*>(offsets), count);
    pos += count;
    col = 0;
    // Odometer step over the outer dimensions.
    for (int d = last - 1; d >= 0; --d) {
      for (int i = 0; i < numInputs_; ++i) base[i] += strides_[i][d];
      if (++index[d] < dims_[d]) break;
      for (int i = 0; i < numInputs_; ++i) base[i] -= dims_[d] * strides_[i][d];
      index[d] = 0;
    }
  }
}

}  // namespace tessera
