// Det: [..., M, M] -> [...], the input's float dtype.
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status detShape(ShapeContext& ctx) {
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  if (!isFloat(x->dtype())) return ctx.error("input " + x->describe() + " must be a float tensor");
  if (x->rank() < 2 || x->dim(-1) != x->dim(-2))
    return ctx.error("input " + x->describe() + " must be square matrices [..., M, M]");
  Shape out = x->shape();
  out.resize(out.size() - 2);
  ctx.output(0) = Tensor(out, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Det, detShape);

}  // namespace tessera
