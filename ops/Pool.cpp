#include "ops/Pool.hpp"

namespace tessera {

Status PoolParams::parse(const Node& node, PoolParams* out) {
  PoolParams p;
  if (node.opType == "MaxPool") p.kind = PoolKind::kMax;
  else if (node.opType == "AveragePool") p.kind = PoolKind::kAverage;
  else if (node.opType == "GlobalMaxPool") p.kind = PoolKind::kGlobalMax;
  else if (node.opType == "GlobalAveragePool") p.kind = PoolKind::kGlobalAverage;
  else return Status::internal(node.label() + ": not a pooling op");
  if (p.kind == PoolKind::kMax || p.kind == PoolKind::kAverage) {
    TESSERA_RETURN_IF_ERROR(WindowParams::parse(node, &p.window));
    if (p.window.kernelShape.empty()) return Status::invalid(node.label() + ": attribute kernel_shape is required");
  }
  p.countIncludePad = node.attrs.getInt("count_include_pad", 0) != 0;
  p.storageOrder = node.attrs.getInt("storage_order", 0);
  if (p.storageOrder != 0 && p.storageOrder != 1)
    return Status::invalid(node.label() + ": storage_order must be 0 or 1, got " + std::to_string(p.storageOrder));
  *out = p;
  return Status::ok();
}

Status resolvePool(const PoolParams& p, const Shape& x, WindowGeometry* out) {
  if (x.size() < 3)
    return Status::invalid("input 'X' must have rank >= 3 ([N, C, spatial...]) but has shape " + shapeToString(x));
  const std::vector<int64_t> spatial(x.begin() + 2, x.end());
  if (p.kind == PoolKind::kGlobalMax || p.kind == PoolKind::kGlobalAverage) {
    for (int64_t d : spatial)
      if (d < 1) return Status::invalid("input 'X' has an empty spatial dimension: " + shapeToString(x));
    return resolveWindow(WindowParams(), spatial, spatial, out);
  }
  return resolveWindow(p.window, spatial, p.window.kernelShape, out);
}

}  // namespace tessera
