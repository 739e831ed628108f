// TopK: values (input dtype) and indices (int64), both the input shape with the axis
// extent replaced by k.
#include "ops/ConstantIntInput.hpp"
#include "ops/TopK.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status topKShape(ShapeContext& ctx) {
  TopKParams p;
  TESSERA_RETURN_IF_ERROR(TopKParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  int64_t axis = 0;
  if (!normalizeAxis(p.axis, x->rank(), &axis))
    return ctx.error("axis " + std::to_string(p.axis) + " is out of range for input " +
                     x->describe());
  int64_t k = p.k;
  if (ctx.node.opset >= 10) {
    std::vector<int64_t> kValues;
    TESSERA_RETURN_IF_ERROR(constantIntInput(ctx.node, ctx.input(1), "K", &kValues));
    if (kValues.size() != 1) return ctx.error("input 'K' must hold exactly one value");
    k = kValues[0];
  }
  if (k < 0 || k > x->dim(static_cast<int>(axis)))
    return ctx.error("k = " + std::to_string(k) + " is out of range for axis " +
                     std::to_string(axis) + " of input " + x->describe());
  Shape out = x->shape();
  out[axis] = k;
  ctx.output(0) = Tensor(out, x->dtype());
  if (ctx.outputs.size() > 1) ctx.output(1) = Tensor(out, DataType::kI64);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(TopK, topKShape);

}  // namespace tessera
