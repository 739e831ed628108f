// LayerNormalization: Y has X's shape; Mean and InvStdDev have X's shape with the
// normalised dimensions (axis..rank-1) set to 1. Scale and B must broadcast to them.
#include "ops/LayerNormalization.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status layerNormShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 'X' is required");
  LayerNormalizationParams p;
  TESSERA_RETURN_IF_ERROR(LayerNormalizationParams::parse(ctx.node, &p));
  int64_t axis = 0;
  if (!normalizeAxis(p.axis, x->rank(), &axis))
    return ctx.error("axis " + std::to_string(p.axis) + " is out of range for X of shape " + shapeToString(x->shape()));
  const Shape normalized(x->shape().begin() + axis, x->shape().end());
  static const char* names[] = {"X", "Scale", "B"};
  for (size_t i = 1; i < 3; ++i) {
    const Tensor* t = ctx.input(i);
    if (!t) {
      if (i == 1) return ctx.error("input 'Scale' is required");
      continue;
    }
    Shape b;
    if (t->rank() > static_cast<int>(normalized.size()) || !broadcastShapes(normalized, t->shape(), &b) || b != normalized)
      return ctx.error(std::string("input '") + names[i] + "' has shape " + shapeToString(t->shape()) +
                       " which does not broadcast to the normalised shape " + shapeToString(normalized));
  }
  ctx.output(0) = Tensor(x->shape(), x->dtype());
  Shape stats = x->shape();
  for (size_t d = axis; d < stats.size(); ++d) stats[d] = 1;
  for (size_t i = 1; i < ctx.outputs.size() && i < 3; ++i) ctx.output(i) = Tensor(stats, DataType::kF32);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(LayerNormalization, layerNormShape);

}  // namespace tessera
