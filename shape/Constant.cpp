// Constant: the shape and dtype of its value attribute.
#include "ops/Constant.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status constantShape(ShapeContext& ctx) {
  ConstantParams p;
  TESSERA_RETURN_IF_ERROR(ConstantParams::parse(ctx.node, &p));
  ctx.output(0) = Tensor(p.value.shape(), p.value.dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Constant, constantShape);

}  // namespace tessera
