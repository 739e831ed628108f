// ConvTranspose: y = [N, W[1]*group, output spatial...] from strides, pads, output_padding
// and output_shape / auto_pad; dtype of x.
#include "ops/Conv.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status convTransposeShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  const Tensor* w = ctx.input(1);
  if (!x || !w) return ctx.error("inputs 'X' and 'W' are required");
  if (x->dtype() != w->dtype())
    return ctx.error(std::string("input 'X' is ") + dataTypeName(x->dtype()) + " but 'W' is " +
                     dataTypeName(w->dtype()));
  ConvParams p;
  TESSERA_RETURN_IF_ERROR(ConvParams::parse(ctx.node, &p));
  ConvShape c;
  Status st = resolveConvTranspose(p, x->shape(), w->shape(), &c);
  if (!st.isOk()) return ctx.error(st.message());
  const Tensor* b = ctx.input(2);
  if (b && (b->rank() != 1 || b->dim(0) != c.outChannels))
    return ctx.error("bias 'B' has shape " + shapeToString(b->shape()) + " but must be [" +
                     std::to_string(c.outChannels) + "]");
  ctx.output(0) = Tensor(c.outputShape(), x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(ConvTranspose, convTransposeShape);

}  // namespace tessera
