// NonMaxSuppression: selected_indices, int64 [num_selected, 3], num_selected known only from
// the values (ShapeContext::shapesFromValues). Checks that boxes and scores agree.
#include "ops/NonMaxSuppression.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

// An optional one-element control input of dtype `dt`.
Status checkScalar(ShapeContext& ctx, size_t i, const char* name, DataType dt) {
  const Tensor* t = ctx.input(i);
  if (!t || t->dtype() == DataType::kUnknown) return Status::ok();
  if (t->dtype() != dt || t->elementCount() != 1 || t->rank() > 1)
    return ctx.error(std::string(name) + " " + t->describe() + " must be a single " + dataTypeName(dt) + " value");
  return Status::ok();
}

Status nonMaxSuppressionShape(ShapeContext& ctx) {
  NonMaxSuppressionParams p;
  TESSERA_RETURN_IF_ERROR(NonMaxSuppressionParams::parse(ctx.node, &p));
  const Tensor* boxes = ctx.input(0);
  const Tensor* scores = ctx.input(1);
  if (!boxes || !scores) return ctx.error("needs boxes (input 0) and scores (input 1)");
  if (boxes->dtype() != DataType::kF32 || scores->dtype() != DataType::kF32)
    return ctx.error("boxes " + boxes->describe() + " and scores " + scores->describe() + " must be f32");
  if (boxes->rank() != 3 || boxes->dim(2) != 4)
    return ctx.error("boxes " + boxes->describe() + " must be [batch, spatial, 4]");
  if (scores->rank() != 3 || scores->dim(0) != boxes->dim(0) || scores->dim(2) != boxes->dim(1))
    return ctx.error("scores " + scores->describe() + " must be [batch, classes, spatial] = [" +
                     std::to_string(boxes->dim(0)) + ", classes, " + std::to_string(boxes->dim(1)) +
                     "] to match boxes " + boxes->describe());
  TESSERA_RETURN_IF_ERROR(checkScalar(ctx, 2, "max_output_boxes_per_class", DataType::kI64));
  TESSERA_RETURN_IF_ERROR(checkScalar(ctx, 3, "iou_threshold", DataType::kF32));
  TESSERA_RETURN_IF_ERROR(checkScalar(ctx, 4, "score_threshold", DataType::kF32));
  ctx.output(0) = Tensor(Shape{}, DataType::kI64);
  ctx.shapesFromValues = true;
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(NonMaxSuppression, nonMaxSuppressionShape);

}  // namespace tessera
