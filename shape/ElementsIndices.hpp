// GatherElements and ScatterElements take an indices tensor of data's rank, int32 or int64, no
// larger than data off the axis: the one check both shape functions make.
#pragma once
#include <string>

#include "tessera/Registry.hpp"

namespace tessera {

inline Status checkElementsIndices(const ShapeContext& ctx, const Tensor& data, const Tensor& indices, int64_t axisAttr) {
  if (indices.dtype() != DataType::kI64 && indices.dtype() != DataType::kI32)
    return ctx.error("indices " + indices.describe() + " must be int32 or int64");
  if (data.rank() < 1 || indices.rank() != data.rank())
    return ctx.error("indices " + indices.describe() + " must have the rank of data " + data.describe() +
                     " (at least 1)");
  int64_t axis = 0;
  if (!normalizeAxis(axisAttr, data.rank(), &axis))
    return ctx.error("axis " + std::to_string(axisAttr) + " is out of range for data " + data.describe());
  for (int d = 0; d < data.rank(); ++d)
    if (d != axis && indices.dim(d) > data.dim(d))
      return ctx.error("indices " + indices.describe() + " is larger than data " + data.describe() + " on axis " +
                       std::to_string(d));
  return Status::ok();
}

}  // namespace tessera
