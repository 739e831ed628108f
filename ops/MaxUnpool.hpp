// MaxUnpool, following the ONNX reference implementation: X [N, C, D1..Dn] and I (int64, X's
// shape) as MaxPool produced them; I holds offsets into the whole unpooled tensor flattened
// ([0, N*C*O1*..*On)). The unpooled extents are Oi = (Di - 1) * stride_i - pad_begin_i -
// pad_end_i + kernel_i; Y starts at zero and Y.flat[I[j]] = X.flat[j] (in order, so the
// last of duplicates wins). An optional output_shape input (needed at planning) gives a
// larger Y: the unpooled tensor fills its leading corner. An index outside the unpooled
// tensor is an error.
#pragma once
#include <string>
#include <vector>

#include "ops/Window.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct MaxUnpoolParams {
  std::vector<int64_t> kernelShape, strides, pads;

  static Status parse(const Node& node, MaxUnpoolParams* out) {
    out->kernelShape = node.attrs.getInts("kernel_shape");
    out->strides = node.attrs.getInts("strides");
    out->pads = node.attrs.getInts("pads");
    if (out->kernelShape.empty()) return Status::invalid(node.label() + ": kernel_shape is missing");
    return Status::ok();
  }

  // The unpooled shape for X's shape, or an error naming the node.
  Status unpooledShape(const Node& node, const Shape& x, Shape* out) const {
    const size_t r = kernelShape.size();
    if (x.size() != r + 2)
      return Status::invalid(node.label() + ": X " + shapeToString(x) + " must be [N, C] + " + std::to_string(r) +
                             " spatial dimensions (kernel_shape " + joinInts(kernelShape) + ")");
    if ((!strides.empty() && strides.size() != r) || (!pads.empty() && pads.size() != 2 * r))
      return Status::invalid(node.label() + ": strides " + joinInts(strides) + " or pads " + joinInts(pads) +
                             " do not match kernel_shape " + joinInts(kernelShape));
    *out = {x[0], x[1]};
    for (size_t d = 0; d < r; ++d) {
      const int64_t stride = strides.empty() ? 1 : strides[d];
      const int64_t pad = pads.empty() ? 0 : pads[d] + pads[r + d];
      const int64_t o = (x[d + 2] - 1) * stride - pad + kernelShape[d];
      if (kernelShape[d] < 1 || stride < 1 || o < 1)
        return Status::invalid(node.label() + ": kernel_shape " + joinInts(kernelShape) + ", strides " +
                               joinInts(strides) + " and pads " + joinInts(pads) + " give no output for X " +
                               shapeToString(x));
      out->push_back(o);
    }
    return Status::ok();
  }
};

}  // namespace tessera
