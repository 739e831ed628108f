// MaxUnpool: the unpooled shape from the window attributes, or the output_shape input's value
// (needed at planning; no smaller than the unpooled shape on any axis). X's dtype.
#include "ops/ConstantIntInput.hpp"
#include "ops/MaxUnpool.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

Status maxUnpoolShape(ShapeContext& ctx) {
  MaxUnpoolParams p;
  TESSERA_RETURN_IF_ERROR(MaxUnpoolParams::parse(ctx.node, &p));
  const Tensor* x = ctx.input(0);
  const Tensor* indices = ctx.input(1);
  if (!x || !indices) return ctx.error("needs inputs 'X' and 'I'");
  if (indices->dtype() != DataType::kI64) return ctx.error("I " + indices->describe() + " must be int64");
  if (indices->shape() != x->shape())
    return ctx.error("I " + indices->describe() + " must have the shape of X " + x->describe());
  Shape out;
  TESSERA_RETURN_IF_ERROR(p.unpooledShape(ctx.node, x->shape(), &out));
  if (const Tensor* given = ctx.input(2)) {
    std::vector<int64_t> v;
    TESSERA_RETURN_IF_ERROR(constantIntInput(ctx.node, given, "output_shape", &v));
    bool fits = v.size() == out.size();
    for (size_t d = 0; fits && d < v.size(); ++d) fits = v[d] >= out[d];
    if (!fits)
      return ctx.error("output_shape " + joinInts(v) + " must have rank " + std::to_string(out.size()) +
                       " and hold the unpooled shape " + joinInts(out));
    out = v;
  }
  ctx.output(0) = Tensor(out, x->dtype());
  return Status::ok();
}

}  // namespace

TESSERA_REGISTER_SHAPE(MaxUnpool, maxUnpoolShape);

}  // namespace tessera
