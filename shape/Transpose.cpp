// Transpose: output extents are the input extents in 'perm' order.
#include "ops/Transpose.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status transposeShape(ShapeContext& ctx) {
  TransposeParams p;
  TESSERA_RETURN_IF_ERROR(TransposeParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  if (!x) return ctx.error("input 0 is missing");
  std::vector<int64_t> perm;
  TESSERA_RETURN_IF_ERROR(p.resolve(ctx.node, x->rank(), &perm));
  Shape out;
  for (int64_t a : perm) out.push_back(x->shape()[a]);
  ctx.output(0) = Tensor(out, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(Transpose, transposeShape);

}  // namespace tessera
