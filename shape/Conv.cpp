// Conv and ConvTranspose: y = [N, output channels, output spatial...] from the op's window
// rule (ops/Conv.hpp: resolveConv, resolveConvTranspose); dtype of x. Conv's optional Z must
// have exactly that shape and dtype.
#include "ops/Conv.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

using ConvResolver = Status (*)(const ConvParams&, const Shape&, const Shape&, ConvShape*);

Status convFamilyShape(ShapeContext& ctx, ConvResolver resolve) {
  const Tensor* x = ctx.input(0);
  const Tensor* w = ctx.input(1);
  if (!x || !w) return ctx.error("inputs 'X' and 'W' are required");
  if (x->dtype() != w->dtype())
    return ctx.error(std::string("input 'X' is ") + dataTypeName(x->dtype()) + " but 'W' is " +
                     dataTypeName(w->dtype()));
  ConvParams p;
  TESSERA_RETURN_IF_ERROR(ConvParams::parse(ctx.node, &p));
  ConvShape c;
  Status st = resolve(p, x->shape(), w->shape(), &c);
  if (!st.isOk()) return ctx.error(st.message());
  const Tensor* b = ctx.input(2);
  if (b && (b->rank() != 1 || b->dim(0) != c.outChannels))
    return ctx.error("bias 'B' has shape " + shapeToString(b->shape()) + " but must be [" +
                     std::to_string(c.outChannels) + "]");
  const Tensor* z = ctx.input(kConvSumInput);
  if (z && resolve != resolveConv) return ctx.error("takes no input 'Z' (only Conv does)");
  if (z && (z->shape() != c.outputShape() || z->dtype() != x->dtype()))
    return ctx.error("input 'Z' is " + std::string(dataTypeName(z->dtype())) + " " + shapeToString(z->shape()) +
                     " but must be the output's " + dataTypeName(x->dtype()) + " " + shapeToString(c.outputShape()));
  ctx.output(0) = Tensor(c.outputShape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Conv, [](ShapeContext& ctx) { return convFamilyShape(ctx, resolveConv); });
TESSERA_REGISTER_SHAPE(ConvTranspose,
                       [](ShapeContext& ctx) { return convFamilyShape(ctx, resolveConvTranspose); });

}  // namespace tessera
