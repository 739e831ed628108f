// EyeLike: input 0's (2-D) shape in `dtype`, or in the input's dtype.
#include "ops/EyeLike.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status eyeLikeShape(ShapeContext& ctx) {
  EyeLikeParams p;
  TESSERA_RETURN_IF_ERROR(EyeLikeParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  if (x->rank() != 2) return ctx.error("input " + x->describe() + " must be 2-D");
  const DataType t = p.dtype == DataType::kUnknown ? x->dtype() : p.dtype;
  if (t == DataType::kString || t == DataType::kUnknown)
    return ctx.error("output type " + std::string(dataTypeName(t)) + " is not supported");
  ctx.output(0) = Tensor(x->shape(), t);
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(EyeLike, eyeLikeShape);

}  // namespace tessera
